import LayoutEngine
import LayoutProtocol

/// Interactive transitions (`view.beginTransition`, `view.updateTransition`,
/// `view.endTransition`): the state is the view's (`View.Gesture`); these read the params and
/// write the results.
extension ViewHost {
    /// `view.beginTransition`: prepares a strategy switch (`strategy`, `params` from its
    /// defaults) or a parameter change (`params` only, over the current values) and returns the
    /// pairs. Not a mutation: no epoch step, no event.
    ///
    /// - Parameter registry: the daemon's strategies now (a reload may have added some).
    func beginTransition(_ params: inout ParamsReader, registry: () -> StrategyRegistry) throws(WireError) -> ViewReply {
        let strategy = try params.optionalString("strategy")
        let changes = try params.optionalObject("params")
        let ifEpoch = try params.optionalInteger("ifEpoch")
        let anchor = try WireAnchor.read(&params)
        try params.finish()
        guard strategy != nil || changes != nil else { throw .invalidParams("params", "needs strategy or params") }
        let parameters = try WireMapping.parameters(changes)
        do {
            let plan = try view.beginTransition(
                to: strategy, parameters: parameters, ifEpoch: ifEpoch, registry: registry(), anchor: anchor.map(WireMapping.anchor))
            return (WireMapping.encodedTransitionBegan(plan, view: name, epoch: view.epoch), [])
        } catch {
            throw error.wire
        }
    }

    /// `view.updateTransition`: every pair's attributes at `progress`. Not a mutation.
    func updateTransition(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        let progress = try params.number("progress")
        try params.finish()
        do {
            return (WireMapping.encodedTransitionFrame(try view.updateTransition(progress: progress), view: name), [])
        } catch {
            throw error.wire
        }
    }

    /// `view.endTransition`: a mutation (commit: the switch; revert: the view as it is), its
    /// `transition` always present. `animated` and `anchor` are accepted and ignored: the end
    /// always animates, and the anchor is the one the transition began with.
    func endTransition(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let commit = try params.bool("commit")
            return Mutation { view throws(LayoutError) in try view.endTransition(commit: commit, ifEpoch: options.ifEpoch) }
        }
    }
}
