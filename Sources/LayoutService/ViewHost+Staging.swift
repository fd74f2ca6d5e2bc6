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
    /// With `dryRun` the commit runs against a copy of the view, as every dry run does: the
    /// result plus `"dryRun":true`, no event, and the upload (still open) keeps its items.
    ///
    /// - Returns: the encoded result, the events, and the items to give back to the budget.
    func commit(
        _ upload: StagedUpload, animated: Bool, ifEpoch: Int?, dryRun: Bool = false, anchor: AnchorPolicy? = nil
    ) -> (result: Result<[UInt8], WireError>, events: [Event], released: Int) {
        let refusedReleases = dryRun ? 0 : upload.itemCount
        guard !isDeleted else { return (.failure(notFound), [], refusedReleases) }
        let countBefore = view.model.numberOfItems
        let invalidation: Invalidation
        do {
            let target = dryRun ? try view.copy() : view
            invalidation = try target.replaceData(upload.sections, animated: animated, ifEpoch: ifEpoch, anchor: anchor)
        } catch {
            return (.failure(error.wire), [], refusedReleases)
        }
        guard !dryRun else { return (.success(WireMapping.encodedInvalidation(invalidation, view: name, dryRun: true, listedIDBytes: lineLength)), [], 0) }
        refreshSummary()
        let result = WireMapping.encodedInvalidation(invalidation, view: name, listedIDBytes: lineLength)
        return (.success(result), invalidated(result, invalidation), upload.itemCount + countBefore - view.model.numberOfItems)
    }
}
