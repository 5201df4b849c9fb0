/// The public description of a found cycle: its plan's breaks with their advice, written after the
/// analysis from the idiom rule each break matched.
extension Advice {
  /// The ``Cycle`` for `found`, every break's ``Cycle/Break/fix`` written from its structured advice.
  static func cycle(_ found: FoundCycle, isLibrary: [Bool]?, in storage: GraphStorage) -> Cycle {
    let fixPlan = found.breaks.map { planned in
      let advice = fix(
        breaking: planned.edge, loop: planned.loop, form: planned.rule.advice, isLibrary: isLibrary,
        in: storage)
      let others = planned.sameEdit.count
      return Cycle.Break(
        edges: ([planned.edge] + planned.sameEdit).map { storage.edge(Int($0)) },
        loop: planned.loop.map { storage.edge(Int($0)) },
        idiom: planned.rule.idiom,
        fix: others == 0
          ? advice.text : "\(advice.text) (one edit for \(others + 1) references of this cycle)")
    }
    return Cycle(
      members: found.members.map { Int($0) },
      path: found.loop.map { storage.edge(Int($0)) },
      pathFromRoot: found.pathFromRoot.map { storage.edge(Int($0)) },
      fixPlan: fixPlan, referencesToWeaken: found.referencesToWeaken,
      libraryLoopMembers: found.libraryLoopMembers.map { Int($0) })
  }
}
