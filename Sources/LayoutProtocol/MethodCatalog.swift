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
        /// Whether a success changes a view and moves its epoch by one: the result is an
        /// invalidation, every subscriber gets a `view.invalidated`, and the params take
        /// `ifEpoch` and `dryRun`. `daemon.describe` says so per method.
        public var mutates: Bool

        init(name: String, summary: String, parameters: [Parameter], result: String, mutates: Bool = false) {
            self.name = name
            self.summary = summary
            self.parameters = parameters
            self.result = result
            self.mutates = mutates
        }

        /// A mutating `view.*` method: the common `mutation` parameters, then its own.
        static func mutation(_ name: String, _ summary: String, _ own: [Parameter], result: String = "invalidation") -> Method {
            Method(name: name, summary: summary, parameters: MethodCatalog.mutation + own, result: result, mutates: true)
        }
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
        p("anchor", "policy", "what this change keeps still: firstVisible, lastVisible, end, none or {id, kind?, edge?, offset?} (default: the view's)", required: false),
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
                p("anchor", "policy", "what changes keep still on screen (default firstVisible)", required: false),
                p("layoutDirection", "ltr|rtl", "rtl mirrors the layout across the content width (default ltr)", required: false),
            ],
            result: "snapshot"),
        Method(name: "view.delete", summary: "delete a view", parameters: [p("view", "string", "the view's name")], result: "{}"),
        Method(name: "view.list", summary: "every view with its strategy and epoch", parameters: [], result: "{views}"),
        Method(name: "view.get", summary: "a view's state and the elements in its window", parameters: [p("view", "string", "the view's name")], result: "snapshot"),
        Method.mutation("view.setData", "replace all data, diffed by id", [p("sections", "[section]", "the new data")]),
        Method.mutation("view.update", "an atomic batch of inserts, deletes, moves and reloads", [p("updates", "[update]", "the batch")]),
        Method.mutation("view.measure", "measured sizes (self-sizing)", [p("sizes", "[{kind?, id, size}]", "measurements; kind for a supplementary element")]),
        Method.mutation("view.select", "change the selection", [p("ids", "[string]", "item ids"), p("mode", "set|add|remove|toggle", "how (default set)", required: false)]),
        Method.mutation(
            "view.scroll", "a new content offset",
            [
                p("offset", "{x, y}", "the offset"),
                p("velocity", "{x, y}", "points per second: asks for prefetch, the cells entering within horizon", required: false),
                p("horizon", "number", "seconds prefetch looks ahead, up to 5 (default 0.25)", required: false),
            ], result: "invalidation with prefetch when velocity is given"),
        Method.mutation("view.scrollEnd", "where scrolling comes to rest (snapping)", [p("proposed", "{x, y}", "where the fling would end"), p("velocity", "{x, y}", "points per second", required: false)], result: "invalidation with targetContentOffset"),
        Method.mutation(
            "view.scrollSection", "scroll an orthogonal section (compositional) across the main direction on its own",
            [p("section", "string", "the section id"), p("offset", "number", "points from the section's leading edge, not clamped")],
            result: "invalidation with section"),
        Method.mutation(
            "view.scrollSectionEnd", "where an orthogonal section comes to rest: its behaviour's paging or snapping, clamped",
            [
                p("section", "string", "the section id"),
                p("proposed", "number", "where the fling would end (default: the section's offset)", required: false),
                p("velocity", "number", "points per second across the main direction (default 0)", required: false),
            ], result: "invalidation with section"),
        Method.mutation(
            "view.scrollTo", "scroll so an item (or a section's header or footer) sits exactly where asked; it stays put while the content settles",
            [
                p("id", "string", "the item id, or the section id for a header or footer"),
                p("kind", "cell|header|footer", "what id names (default cell)", required: false),
                p("align", "start|center|end|nearest", "where it goes (default start)", required: false),
                p("offset", "number", "points inward from the aligned edge (default 0)", required: false),
            ], result: "invalidation with targetContentOffset and needsMeasure"),
        Method.mutation(
            "view.resize", "a new viewport size",
            [
                p("size", "{width, height}", "the size"),
                p("safeAreaInsets", "{top, left, bottom, right}", "new safe area insets (default: unchanged)", required: false),
                p("layoutMargins", "{top, left, bottom, right}", "new layout margins (default: unchanged)", required: false),
                p("readableWidth", "number", "new readable content width (default: unchanged)", required: false),
            ]),
        Method.mutation("view.configure", "change strategy parameters", [p("params", "object", "the parameters that change")]),
        Method.mutation("view.setStrategy", "switch strategy, first visible item anchored", [p("strategy", "string", "a registered strategy"), p("params", "object", "its parameters", required: false)]),
        Method.mutation("view.setWindowMargin", "change the window margin", [p("margin", "number", "points")]),
        Method(
            name: "view.setAnchor", summary: "what later changes keep still on screen",
            parameters: mutation.map { common in
                common.name == "anchor"
                    ? p("anchor", "policy", "the view's policy from now on: firstVisible, lastVisible, end, none or {id, kind?, edge?, offset?}")
                    : common
            },
            result: "invalidation", mutates: true),
        Method.mutation(
            "view.setLayoutDirection", "lay the view out left to right or right to left (mirrored), anchor kept",
            [p("layoutDirection", "ltr|rtl", "the direction")]),
        Method.mutation(
            "view.beginMove", "start an interactive move: the item follows the finger, the others re-flow around its target",
            [
                p("id", "string", "the item to drag"),
                p("point", "{x, y}", "the finger in viewport coordinates (default: the item's centre)", required: false),
            ], result: "invalidation with moving, target, autoScroll"),
        Method.mutation(
            "view.updateMove", "the finger moved (or stayed while the client scrolled): new target and auto-scroll",
            [p("point", "{x, y}", "the finger in viewport coordinates (content point minus viewport.offset)")],
            result: "invalidation with move and target, autoScroll"),
        Method.mutation(
            "view.endMove", "drop the moving item at its target (one batch move) or put it back",
            [p("commit", "bool", "true: drop at the target; false: cancel")], result: "invalidation with moveEnded and transition"),
        Method(
            name: "view.beginTransition", summary: "prepare an interactive transition to a strategy or parameters; the from/to pairs",
            parameters: [
                p("view", "string", "the view's name"),
                p("strategy", "string", "a registered strategy (absent: a parameter change)", required: false),
                p("params", "object", "its parameters, or the parameters that change", required: false),
                p("ifEpoch", "integer", "refuse with StaleEpoch unless the view is at this epoch", required: false),
                p("anchor", "policy", "what a commit keeps still (default: the view's)", required: false),
            ],
            result: "{view, epoch, strategy, progress, duration, contentOffset, contentSize, pairs}"),
        Method(
            name: "view.updateTransition", summary: "scrub the interactive transition: every element at a progress",
            parameters: [p("view", "string", "the view's name"), p("progress", "number", "0 (the layout before) ... 1 (the target)")],
            result: "{view, progress, contentOffset, contentSize, elements}"),
        Method.mutation(
            "view.endTransition", "finish the interactive transition to the target (commit) or back, animated from the progress",
            [p("commit", "bool", "true: switch; false: go back")], result: "invalidation with transition"),
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
                p("dryRun", "bool", "return the result as if applied, with dryRun: true, change nothing and leave the upload open (default false)", required: false),
                p("anchor", "policy", "what the change keeps still (default: the view's)", required: false),
            ],
            result: "invalidation", mutates: true),
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
        Method(
            name: "view.hitTest", summary: "the topmost element at a point",
            parameters: [
                p("view", "string", "the view's name"), p("point", "{x, y}", "the point, in content coordinates"),
                p("kinds", "[cell|header|footer]", "the kinds that may be hit (default: all)", required: false),
            ],
            result: "{element}"),
        Method(
            name: "view.neighbor", summary: "the item a keyboard moves to from an item",
            parameters: [
                p("view", "string", "the view's name"), p("id", "string", "the item id"),
                p("direction", "up|down|left|right|next|previous", "by geometry, or by reading order"),
            ],
            result: "{element}"),
        Method(name: "view.subscribe", summary: "a snapshot, then view.invalidated events", parameters: [p("view", "string", "the view's name")], result: "{subscription, snapshot}"),
        Method(name: "view.unsubscribe", summary: "stop events", parameters: [p("subscription", "integer", "from view.subscribe")], result: "{}"),
    ]

    /// Every event name of protocol version 1. Clients ignore events they do not know.
    public static let events = ["view.invalidated", "view.deleted", "view.resync", "view.transitionInterrupted", "daemon.shutdown"]

    public static func method(named name: String) -> Method? { methods.first { $0.name == name } }
}
