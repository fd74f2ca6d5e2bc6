import LayoutEngine
import LayoutProtocol

extension ViewHost {
    /// Applies a staged upload as one `view.setData` of its sections: the same validation,
    /// the same result, one epoch step and one `view.invalidated` per subscriber. Must run on
    /// `queue`.
    ///
    /// The upload's items were reserved from the item budget as they were appended, so a
    /// commit takes nothing more from it (it cannot fail for want of budget after the data
    /// arrived). The caller settles the budget with `released`: on success the items the view
    /// held before, which the upload's replace; on a refusal the upload's own.
    ///
    /// - Returns: the encoded result, the events, and the items to give back to the budget.
    func commit(_ upload: StagedUpload, animated: Bool, ifEpoch: Int?) -> (result: Result<[UInt8], WireError>, events: [Event], released: Int) {
        guard !isDeleted else { return (.failure(notFound), [], upload.itemCount) }
        let countBefore = view.model.numberOfItems
        let invalidation: Invalidation
        do {
            invalidation = try view.replaceData(upload.sections, animated: animated, ifEpoch: ifEpoch)
        } catch {
            return (.failure(error.wire), [], upload.itemCount)
        }
        summary.withLock { $0 = ViewSummary(strategy: view.strategyName, epoch: view.epoch, itemCount: view.model.numberOfItems) }
        let result = WireMapping.encodedInvalidation(invalidation, view: name)
        let events = subscribers.map { Event(connection: $0.connection, name: "view.invalidated", subscription: $0.subscription, params: result) }
        return (.success(result), events, upload.itemCount + countBefore - view.model.numberOfItems)
    }
}
