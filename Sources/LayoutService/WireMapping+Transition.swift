import LayoutEngine
import LayoutGeometry
import LayoutProtocol

/// Interactive transitions on the wire (`view.beginTransition`, `view.updateTransition`, and
/// the `interactiveTransition` of a scroll's invalidation), written directly as the
/// invalidation is.
extension WireMapping {
    /// `view.beginTransition`'s result: `{"view","epoch", ...the plan}`.
    static func encodedTransitionBegan(_ plan: TransitionPlan, view: String, epoch: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 + 400 * plan.pairs.count)
        writer.write(raw: #"{"view":"#)
        writer.write(view)
        writer.write(raw: #","epoch":"#)
        writer.write(Double(epoch))
        writer.append(UInt8(ascii: ","))
        writeFields(of: plan, into: &writer)
        writer.append(UInt8(ascii: "}"))
        return writer.finish()
    }

    /// A re-plan as an object (the invalidation's `interactiveTransition`): the plan's fields,
    /// then `left` and the new or changed pairs' attributes at the progress (`elements`).
    static func write(replanned plan: TransitionPlan, into writer: inout JSONWriter) {
        writer.append(UInt8(ascii: "{"))
        writeFields(of: plan, into: &writer)
        writer.write(raw: #","left":["#)
        for (index, key) in (plan.left ?? []).enumerated() {
            if index > 0 { writer.append(UInt8(ascii: ",")) }
            write(key: key, into: &writer)
        }
        writer.write(raw: #"],"elements":"#)
        write(plan.elements, into: &writer)
        writer.append(UInt8(ascii: "}"))
    }

    /// `"strategy","progress","duration","contentOffset":{"from","to"},"contentSize":{"from","to"},"pairs"`,
    /// then `anchor` and `anchorPolicy` when present.
    static func writeFields(of plan: TransitionPlan, into writer: inout JSONWriter) {
        writer.write(raw: #""strategy":"#)
        writer.write(plan.strategy)
        writer.write(raw: #","progress":"#)
        writer.write(plan.progress)
        writer.write(raw: #","duration":"#)
        writer.write(plan.duration)
        writer.write(raw: #","contentOffset":{"from":"#)
        writer.write(point: plan.fromContentOffset)
        writer.write(raw: #","to":"#)
        writer.write(point: plan.toContentOffset)
        writer.write(raw: #"},"contentSize":{"from":"#)
        writer.write(size: plan.fromContentSize)
        writer.write(raw: #","to":"#)
        writer.write(size: plan.toContentSize)
        writer.write(raw: #"},"pairs":["#)
        for (index, pair) in plan.pairs.enumerated() {
            if index > 0 { writer.append(UInt8(ascii: ",")) }
            write(key: pair.key, from: pair.from, to: pair.to, into: &writer)
            writer.append(UInt8(ascii: "}"))
        }
        writer.append(UInt8(ascii: "]"))
        if let anchor = plan.anchor {
            writer.write(raw: #","anchor":"#)
            writer.write(anchor)
        }
        if let policy = plan.anchorPolicy {
            writer.write(raw: #","anchorPolicy":"#)
            writer.write(policy)
        }
    }

    /// `view.updateTransition`'s result: `{"view","progress","contentOffset","contentSize","elements"}`.
    static func encodedTransitionFrame(_ frame: TransitionFrame, view: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 + 192 * frame.elements.count)
        writer.write(raw: #"{"view":"#)
        writer.write(view)
        writer.write(raw: #","progress":"#)
        writer.write(frame.progress)
        writer.write(raw: #","contentOffset":"#)
        writer.write(point: frame.contentOffset)
        writer.write(raw: #","contentSize":"#)
        writer.write(size: frame.contentSize)
        writer.write(raw: #","elements":"#)
        write(frame.elements, into: &writer)
        writer.append(UInt8(ascii: "}"))
        return writer.finish()
    }

    /// The `view.transitionInterrupted` event's params: `{"view","epoch","strategy","progress"}`.
    static func encodedInterruption(_ interrupted: InterruptedTransition, view: String, epoch: Int) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.write(raw: #"{"view":"#)
        writer.write(view)
        writer.write(raw: #","epoch":"#)
        writer.write(Double(epoch))
        writer.write(raw: #","strategy":"#)
        writer.write(interrupted.strategy)
        writer.write(raw: #","progress":"#)
        writer.write(interrupted.progress)
        writer.append(UInt8(ascii: "}"))
        return writer.finish()
    }
}
