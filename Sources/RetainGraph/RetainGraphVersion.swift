/// The version of RetainGraph: what `retain-graph --version` prints and what a SARIF log names as
/// its tool's version (`tool.driver.version`).
///
/// ```swift
/// print(RetainGraphVersion.current)   // 1.0.0-dev
/// ```
///
/// A semantic version (semver.org): `-dev` marks what `main` holds before the release it names.
/// `CHANGELOG.md` says what each version changed.
public enum RetainGraphVersion {
  /// The package's version, `MAJOR.MINOR.PATCH` with an optional pre-release part (`1.0.0-dev`).
  public static let current = "1.0.0-dev"
}
