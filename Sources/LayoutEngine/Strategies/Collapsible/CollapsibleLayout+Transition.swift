import LayoutGeometry

extension CollapsibleLayout {
    /// Seconds for the second phase of a pre-stack transition: the stacks and the rest of the
    /// grid settle into the collapsed layout.
    static let settleDuration = 0.25

    /// Collapsing with `transition: preStack` plays in two phases (the seed's "Pre-Stack Anim",
    /// made to work when runs leave the viewport):
    ///
    /// 1. each run's followers slide onto the run leader's *old* frame: with `c` followers in a
    ///    run, follower k (1-based) starts after `(k−1)·step` seconds, `step = min(0.1, T/c)`,
    ///    and arrives at `T = min(0.75, 0.3·longest)`, `longest` being the most followers any
    ///    affected run has;
    /// 2. at `T`, everything (the new stacks included) moves to its collapsed frame over 0.25 s
    ///    (a follower whose stack does not move has no second segment).
    ///
    /// Anything else (expanding, or `basic`) moves together over `animationDuration`.
    ///
    /// - Complexity: O(m log n) for m moves: leaders and run lengths come from the slot tree.
    public func planTransition(
        from previous: any LayoutStrategy, moves: [TransitionSegment], model: CollectionModel
    ) -> Transition {
        guard let previous = previous as? CollapsibleLayout, !previous.isCollapsed, isCollapsed,
            transitionStyle == .preStack
        else {
            return .together(moves, duration: animationDuration)
        }
        struct Run {
            var followers: Int
            var leaderFrameBefore: Rect
        }
        var runs = [Int: Run]()  // by leader's global index
        var followerOf = [ElementKey: (leader: Int, position: Int)]()
        for move in moves where move.key.kind == .cell {
            guard let path = model.indexPath(ofItem: move.key.id), isStacked(path) else { continue }
            let global = items.global(path)
            let slot = slot(ofGlobal: global, section: path.section)
            let leader = firstItem(inSection: path.section, slotAtLeast: slot)
            if runs[leader] == nil {
                let end = firstItem(inSection: path.section, slotAtLeast: slot + 1)
                let leaderID = model.itemID(at: items.path(ofGlobal: leader))
                let before = previous.attributes(forItem: leaderID, model: model)?.frame ?? move.from.frame
                runs[leader] = Run(followers: end - leader - 1, leaderFrameBefore: before)
            }
            followerOf[move.key] = (leader, global - leader)
        }
        guard let longest = runs.values.map(\.followers).max() else {
            return .together(moves, duration: animationDuration)
        }
        let stackingTime = min(0.75, 0.3 * Double(longest))
        var segments = [TransitionSegment]()
        for move in moves {
            guard let (leader, position) = followerOf[move.key], let run = runs[leader] else {
                segments.append(
                    TransitionSegment(
                        key: move.key, from: move.from, to: move.to, delay: stackingTime,
                        duration: Self.settleDuration))
                continue
            }
            let step = min(0.1, stackingTime / Double(run.followers))
            let delay = Double(position - 1) * step
            var onLeader = move.from
            onLeader.frame = run.leaderFrameBefore
            // The seed animates these as keyframes with `.calculationModeLinear`: constant speed
            // between keyframes; the settling phase after them is an ordinary eased animation.
            segments.append(
                TransitionSegment(
                    key: move.key, from: move.from, to: onLeader, delay: delay, duration: stackingTime - delay, curve: .linear))
            // A stack that does not move in phase 2 needs no second segment.
            if onLeader != move.to {
                segments.append(
                    TransitionSegment(
                        key: move.key, from: onLeader, to: move.to, delay: stackingTime, duration: Self.settleDuration))
            }
        }
        return Transition(duration: stackingTime + Self.settleDuration, segments: segments)
    }
}
