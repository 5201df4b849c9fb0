/// The version of RetainGraph: what `retain-graph --version` prints and what a SARIF log names as
/// its tool's version (`tool.driver.version`).
///
/// ```swift
/// print(retainGraphVersion)   // 1.0.0-dev
/// ```
///
/// A semantic version (semver.org), `MAJOR.MINOR.PATCH` with an optional pre-release part: `-dev`
/// marks what `main` holds before the release it names. `CHANGELOG.md` says what each version
/// changed.
///
/// A constant rather than a type's member: the symbol graphs DocC reads leave out every type whose
/// name starts with its module's name and `Version` (they take it for the module's generated
/// version symbols), so a `RetainGraphVersion` type would be missing from the documentation.
public let retainGraphVersion = "1.0.0-dev"
