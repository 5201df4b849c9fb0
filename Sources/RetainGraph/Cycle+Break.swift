extension Cycle {
  /// One reference of a cycle's fix plan: the reference to weaken, the loop it breaks, and the fix
  /// in the words a Swift developer applies it.
  ///
  /// The plan of a cycle (``Cycle/fixPlan``) is the smallest set of references whose weakening
  /// leaves no strong cycle among the cycle's members. Each break's ``loop`` is a loop that only
  /// this break breaks: weaken the other references of the plan and this loop still retains its
  /// objects.
  public struct Break: Sendable, Hashable {
    /// Why a reference was chosen: the ownership idiom it matches.
    public enum Idiom: String, Sendable, Hashable, CaseIterable, Codable {
      /// A closure captures the object strongly: capture it `[weak self]` in that closure.
      case closureCapture
      /// A method reference (`completion = handleResponse`) is stored: it retains its object; store
      /// a closure that captures `[weak self]` instead.
      case methodReference
      /// A back reference: `delegate`, `dataSource`, `parent`, `owner`, `output`, an observer or
      /// listener, or the reference from an object to the one that holds it as a child or in a
      /// collection. Make it `weak`.
      case backReference
      /// No idiom applies: the reference was chosen for the structure of the loops alone.
      case structure
      /// A library's object holds yours (an `Assign` subscriber its target, a session its
      /// delegate): the reference is the library's and cannot be made weak. Held in a property, the
      /// fix is the edit that ends it (cancel a subscription, finish a stream, close a channel,
      /// invalidate a timer, remove an observer) or the library's way out; held by a library's
      /// closure, give the library a closure that captures `[weak self]` instead of the object.
      case libraryReference
    }

    /// The reference to weaken (the first of ``edges``).
    public let edge: Edge
    /// Every reference the one edit weakens: `edge`, and the other references of the cycle made
    /// through the same declaration (a stored property of one type, one closure's capture, one method
    /// reference). `make NoteDetailViewModel.repository weak` weakens that property in every
    /// NoteDetailViewModel on the cycle.
    public var edges: [Edge] { brokenEdges.edges }
    /// A loop through ``edge``, starting at the referenced object and ending with ``edge``; it stays
    /// strong when every other reference of the plan is weakened.
    public var loop: [Edge] { loopEdges.edges }
    /// How many references ``edges`` lists (without making them).
    package var editedReferenceCount: Int { brokenEdges.indices.count }
    /// ``edges`` and ``loop`` as indices of the graph's edges.
    let brokenEdges: EdgeIndices
    let loopEdges: EdgeIndices
    /// The idiom the reference matches.
    public let idiom: Idiom
    /// The fix as a value: what the developer edits and where (its `description` is the sentence,
    /// such as `make Interactor.output weak`).
    public let advice: FixAdvice
    /// The fix, one sentence: ``advice``'s, such as `make Interactor.output weak` or: capture
    /// `[weak self]` in closure #1 in CartViewModel.init() (stored in Store.subscribers[0]). When the
    /// one edit weakens several references (``edges``), it says how many and which: `make
    /// NoteDetailViewModel.repository weak (3 references: entries[#0…#2])` (the holders are the
    /// elements of one collection), or `(2 references: one in each of 2 Node objects)`.
    public let fix: String
    /// Where the declaration the fix edits is written: the stored property to make `weak` (its `var`
    /// or `let`), the closure to capture `[weak self]` in (its line), from the debug information of
    /// the binary that walked the graph, or from the snapshot it was read from. Nil when the fix
    /// edits no one declaration (a library's reference, a task, a stored method reference), the
    /// property is declared in a nested value (or inherited by a nested or generic class), or the
    /// binary has no debug information (a release build without `-g`, a stripped binary): nothing is
    /// guessed. An inherited property is placed at its superclass's declaration.
    public var location: CodeLocation? {
      declaration.flatMap { brokenEdges.graphStorage?.sourceLocations.location(of: $0) }
    }
    /// The declaration the fix edits, when it is one stored property or one closure.
    let declaration: SourceDeclaration?
    /// The other edit that breaks the same loop, when the cycle cannot tell which of the two keeps
    /// the program working: a closure (or method reference) that captures the object, stored in
    /// another object that the captured one holds by a stored property (`FeedSession.socket` →
    /// `FeedSocket.onText` → the session). Weakening either frees its target unless something else
    /// owns it while in use: `[weak self]` frees the session if the closure is its only owner (a
    /// websocket's session usually is), `weak socket` frees the socket if the session is its only
    /// owner (an `AnyCancellable` is: no alternative is given for cancellation tokens). A leaked cycle
    /// shows neither owner; the running program does. Nil for every other break.
    public let alternative: Alternative?

    /// The second edit of a break whose cycle cannot tell which of two references to weaken
    /// (``Cycle/Break/alternative``): the object's own stored property on the loop.
    public struct Alternative: Sendable, Hashable {
      /// The reference it weakens: the stored property of the object the break's closure captures.
      public var edge: Edge { edgeIndex.edges[0] }
      /// The edit, as a value (`make FeedSession.socket weak`).
      public let advice: FixAdvice
      /// The type (short name) that the break's edit frees if nothing else owns it: the captured
      /// object's (`FeedSession`).
      public let breakFrees: String
      /// The type (short name) that this edit frees if nothing else owns it: the property's target's
      /// (`FeedSocket`).
      public let frees: String
      /// The edit, one sentence (``advice``'s).
      public var fix: String { advice.description }
      /// Where the property is declared, when the debug information says.
      public var location: CodeLocation? {
        declaration.flatMap { edgeIndex.graphStorage?.sourceLocations.location(of: $0) }
      }
      /// What holds the object in the break's reference: `closure` or `method reference`.
      let capturedBy: String
      let edgeIndex: EdgeIndices
      let declaration: SourceDeclaration?

      init(
        edge: EdgeIndices, advice: FixAdvice, capturedBy: String, breakFrees: String, frees: String,
        declaration: SourceDeclaration?
      ) {
        self.capturedBy = capturedBy
        self.edgeIndex = edge
        self.advice = advice
        self.breakFrees = breakFrees
        self.frees = frees
        self.declaration = declaration
      }

      /// When this edit is the one to make, as the report says it: `if the closure is the
      /// FeedSession's only owner while in use (then `[weak self]` frees it early) and something else
      /// owns the FeedSocket`.
      public var condition: String {
        "if the \(capturedBy) is the \(breakFrees)'s only owner while in use (then the first edit frees it "
          + "early) and something else owns the \(frees)"
      }
    }

    /// Creates a break. Only the cycle finder makes them.
    /// - Parameters:
    ///   - edge: the reference to weaken, the first of `edges`.
    ///   - edges: every reference the edit weakens.
    ///   - loop: a loop that only this break breaks.
    ///   - idiom: the idiom the reference matches.
    ///   - advice: the fix.
    ///   - references: which references the edit weakens, when it weakens several.
    ///   - declaration: the declaration the fix edits, when it is one.
    ///   - alternative: the other edit, when the cycle cannot tell which of two to make.
    init(
      edge: Edge, edges: EdgeIndices, loop: EdgeIndices, idiom: Idiom, advice: FixAdvice, references: String?,
      declaration: SourceDeclaration? = nil, alternative: Alternative? = nil
    ) {
      self.edge = edge
      self.declaration = declaration
      self.alternative = alternative
      self.brokenEdges = edges
      self.loopEdges = loop
      self.idiom = idiom
      self.advice = advice
      self.fix =
        references.map { "\(advice.description) (\(edges.indices.count) references: \($0))" }
        ?? advice.description
    }
  }
}
