import LayoutEngine
import LayoutProtocol

/// The methods of staged uploads (protocol/mutations.md, "Staged uploads"). `begin`, `append`
/// and `abort` never touch the view, so they complete before they return; `commit` runs on the
/// view's queue like every mutation.
///
/// A connection runs one request at a time, so its appends are all in before its commit.
extension LayoutService {
    func stageBegin(_ params: inout ParamsReader, connection: ConnectionID) throws(WireError) -> [UInt8] {
        let name = try params.string("view")
        let ifEpoch = try params.optionalInteger("ifEpoch")
        try params.finish()
        let host = try host(named: name)
        // The epoch as of the view's last completed mutation: a point in the order of its
        // changes, as good as reading it on the queue.
        let epoch = host.summary.withLock { $0.epoch }
        if let ifEpoch, ifEpoch != epoch { throw LayoutError.staleEpoch(expected: ifEpoch, actual: epoch).wire }
        let upload = try staging.begin(connection: connection, host: host)
        return JSONWriter.encode(.object(["upload": .string(upload), "view": .string(name), "epoch": .number(Double(epoch))]))
    }

    func stageAppend(_ params: inout ParamsReader, connection: ConnectionID) throws(WireError) -> [UInt8] {
        let id = try params.string("upload")
        let parts = try WireModel.sections(&params, "sections").map(WireMapping.section)
        try params.finish()
        let totals = try staging.append(parts, to: id, connection: connection)
        return JSONWriter.encode(.object([
            "upload": .string(id), "items": .number(Double(totals.items)), "sections": .number(Double(totals.sections)),
        ]))
    }

    func stageCommit(_ params: inout ParamsReader, connection: ConnectionID, finish: @escaping Finish) throws(WireError) {
        let id = try params.string("upload")
        let animated = try params.optionalBool("animated") ?? false
        let ifEpoch = try params.optionalInteger("ifEpoch")
        let dryRun = try params.optionalBool("dryRun") ?? false
        let anchor = try WireAnchor.read(&params).map(WireMapping.anchor)
        try params.finish()
        // Taken out first: whatever the commit's outcome, the upload has ended. A dry run
        // previews it and leaves it open, its items still reserved.
        let upload = dryRun ? try staging.peek(id, connection: connection) : try staging.take(id, connection: connection)
        upload.host.queue.async { [self] in
            let (result, events, released) = upload.host.commit(upload, animated: animated, ifEpoch: ifEpoch, dryRun: dryRun, anchor: anchor)
            itemBudget.release(released)
            finish(result, events)
            // The upload's parts and the data it replaced (or, refused, the upload itself) are
            // freed once this block is: the trim is asked for behind it.
            if !dryRun { FreedMemory.release(items: max(upload.itemCount, released), after: upload.host.queue) }
        }
    }

    func stageAbort(_ params: inout ParamsReader, connection: ConnectionID) throws(WireError) {
        let id = try params.string("upload")
        try params.finish()
        FreedMemory.release(items: try staging.abort(id, connection: connection))
    }
}
