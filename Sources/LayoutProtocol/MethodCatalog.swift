/// Every method of protocol version 1, with its parameters: what `daemon.describe` returns and
/// what the published contract documents. Defined once, here.
public enum MethodCatalog {
    public struct Parameter: Sendable {
        public var name: String
        public var type: String
        public var required: Bool
        public var summary: String
    }

    public struct Method: Sendable {
        public var name: String
        public var summary: String
        public var parameters: [Parameter]
        public var result: String
    }

    public static let protocolVersions = [1]

    private static func p(_ name: String, _ type: String, _ summary: String, required: Bool = true) -> Parameter {
        Parameter(name: name, type: type, required: required, summary: summary)
    }

    /// Parameters every mutating `view.*` method takes besides its own.
    static let mutation = [
        p("view", "string", "the view's name"),
        p("animated", "bool", "include a transition (default false)", required: false),
        p("ifEpoch", "integer", "refuse with StaleEpoch unless the view is at this epoch", required: false),
        p("dryRun", "bool", "return the result as if applied, with dryRun: true, and change nothing (default false)", required: false),
    ]

    public static let methods: [Method] = [
        Method(
            name: "daemon.hello", summary: "agree on a protocol version; limits and capabilities",
            parameters: [p("protocol", "[integer]", "versions the client speaks (default [1])", required: false)],
            result: "{protocol, server, version, limits}"),
        Method(name: "daemon.describe", summary: "every method, error and strategy", parameters: [], result: "{methods, errors, strategies}"),
        Method(
            name: "daemon.status", summary: "views, items, requests served, errors, connections, memory", parameters: [],
            result: "{views, items, subscriptions, requests, errors, uptime, generation, connections, memory}"),
        Method(name: "daemon.sync", summary: "replies after every earlier event for this connection", parameters: [], result: "{}"),
        Method(name: "daemon.reload", summary: "re-read the configuration file (as SIGHUP does)", parameters: [], result: "{generation, changed}"),
        Method(name: "strategy.list", summary: "registered strategies with parameters and defaults", parameters: [], result: "{strategies}"),
        Method(
            name: "view.create", summary: "create a named view",
            parameters: [
                p("view", "string", "a new name"), p("strategy", "string", "a registered strategy"),
                p("params", "object", "strategy parameters", required: false),
                p("viewport", "{width, height, offset?, contentInsets?}", "the scroll view"),
                p("windowMargin", "number", "prefetch margin along the scroll axis (default 0)", required: false),
                p("sections", "[section]", "initial data (default none)", required: false),
            ],
            result: "snapshot"),
        Method(name: "view.delete", summary: "delete a view", parameters: [p("view", "string", "the view's name")], result: "{}"),
        Method(name: "view.list", summary: "every view with its strategy and epoch", parameters: [], result: "{views}"),
        Method(name: "view.get", summary: "a view's state and the elements in its window", parameters: [p("view", "string", "the view's name")], result: "snapshot"),
        Method(name: "view.setData", summary: "replace all data, diffed by id", parameters: mutation + [p("sections", "[section]", "the new data")], result: "invalidation"),
        Method(name: "view.update", summary: "an atomic batch of inserts, deletes, moves and reloads", parameters: mutation + [p("updates", "[update]", "the batch")], result: "invalidation"),
        Method(name: "view.measure", summary: "measured sizes (self-sizing)", parameters: mutation + [p("sizes", "[{id, size}]", "measurements")], result: "invalidation"),
        Method(
            name: "view.select", summary: "change the selection",
            parameters: mutation + [p("ids", "[string]", "item ids"), p("mode", "set|add|remove|toggle", "how (default set)", required: false)],
            result: "invalidation"),
        Method(name: "view.scroll", summary: "a new content offset", parameters: mutation + [p("offset", "{x, y}", "the offset")], result: "invalidation"),
        Method(
            name: "view.scrollEnd", summary: "where scrolling comes to rest (snapping)",
            parameters: mutation + [p("proposed", "{x, y}", "where the fling would end"), p("velocity", "{x, y}", "points per second", required: false)],
            result: "invalidation with targetContentOffset"),
        Method(name: "view.resize", summary: "a new viewport size", parameters: mutation + [p("size", "{width, height}", "the size")], result: "invalidation"),
        Method(name: "view.configure", summary: "change strategy parameters", parameters: mutation + [p("params", "object", "the parameters that change")], result: "invalidation"),
        Method(
            name: "view.setStrategy", summary: "switch strategy, first visible item anchored",
            parameters: mutation + [p("strategy", "string", "a registered strategy"), p("params", "object", "its parameters", required: false)],
            result: "invalidation"),
        Method(name: "view.setWindowMargin", summary: "change the window margin", parameters: mutation + [p("margin", "number", "points")], result: "invalidation"),
        Method(
            name: "view.stage.begin", summary: "open a staged upload: data for one setData too large for one line or batch",
            parameters: [
                p("view", "string", "the view's name"),
                p("ifEpoch", "integer", "refuse with StaleEpoch unless the view is at this epoch", required: false),
            ],
            result: "{upload, view, epoch}"),
        Method(
            name: "view.stage.append", summary: "add sections and items to an open upload of this connection",
            parameters: [
                p("upload", "string", "from view.stage.begin on this connection"),
                p("sections", "[section]", "items to append; a section id seen before continues that section"),
            ],
            result: "{upload, items, sections}"),
        Method(
            name: "view.stage.commit", summary: "apply an upload as one view.setData and end it",
            parameters: [
                p("upload", "string", "from view.stage.begin on this connection"),
                p("animated", "bool", "include a transition (default false)", required: false),
                p("ifEpoch", "integer", "refuse with StaleEpoch unless the view is at this epoch", required: false),
            ],
            result: "invalidation"),
        Method(
            name: "view.stage.abort", summary: "end an upload unapplied", parameters: [p("upload", "string", "from view.stage.begin on this connection")],
            result: "{}"),
        Method(
            name: "view.query", summary: "elements intersecting a rect, a page at a time in key order",
            parameters: [
                p("view", "string", "the view's name"), p("rect", "{x, y, width, height}", "the rect"),
                p("limit", "integer", "elements per page, 1 to maximumWindowElements (the default)", required: false),
                p("after", "{kind, id}", "the next of the previous page: start after this key", required: false),
            ],
            result: "{elements, selected, next?}"),
        Method(name: "view.item", summary: "one item's attributes", parameters: [p("view", "string", "the view's name"), p("id", "string", "the item id")], result: "{attributes}"),
        Method(name: "view.subscribe", summary: "a snapshot, then view.invalidated events", parameters: [p("view", "string", "the view's name")], result: "{subscription, snapshot}"),
        Method(name: "view.unsubscribe", summary: "stop events", parameters: [p("subscription", "integer", "from view.subscribe")], result: "{}"),
    ]

    /// Every event name of protocol version 1. Clients ignore events they do not know.
    public static let events = ["view.invalidated", "view.deleted", "view.resync", "daemon.shutdown"]

    public static func method(named name: String) -> Method? { methods.first { $0.name == name } }
}
