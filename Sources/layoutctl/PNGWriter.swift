import Glibc

/// Writes an SVG document as a PNG through librsvg and cairo, loaded with `dlopen` when first
/// needed: layoutctl has no build-time dependency on them, and without them only `--png`
/// fails, with a message naming the Debian packages.
///
/// The calls: `rsvg_handle_new_from_data`, `rsvg_handle_get_intrinsic_size_in_pixels` (the
/// document's width and height, librsvg ≥ 2.52), `cairo_image_surface_create` (ARGB32),
/// `rsvg_handle_render_document` (≥ 2.46) into a viewport of that size, and
/// `cairo_surface_write_to_png`.
enum PNGWriter {
    struct Failure: Error {
        var message: String
    }

    /// Renders `svg` at its own size (1 px per SVG unit) and writes it to `path`.
    ///
    /// - Returns: the PNG's width and height in pixels.
    static func write(svg: String, to path: String) throws(Failure) -> (width: Int, height: Int) {
        let library = try Library.load()
        var error: UnsafeMutableRawPointer?
        let bytes = Array(svg.utf8)
        guard let handle = bytes.withUnsafeBufferPointer({ library.newFromData($0.baseAddress, $0.count, &error) }) else {
            throw Failure(message: "librsvg cannot read the SVG: \(message(error))")
        }
        defer { library.unref(handle) }
        var width = 0.0, height = 0.0
        guard library.intrinsicSize(handle, &width, &height) != 0, width >= 1, height >= 1, width < 32768, height < 32768 else {
            throw Failure(message: "the SVG has no usable size in pixels (\(width) × \(height))")
        }
        let (pixelsWide, pixelsHigh) = (Int32(width.rounded(.up)), Int32(height.rounded(.up)))
        guard let surface = library.imageSurfaceCreate(0 /* CAIRO_FORMAT_ARGB32 */, pixelsWide, pixelsHigh) else {
            throw Failure(message: "cairo cannot make a \(pixelsWide) × \(pixelsHigh) image")
        }
        defer { library.surfaceDestroy(surface) }
        guard let context = library.create(surface) else { throw Failure(message: "cairo cannot draw on the image") }
        // An RsvgRectangle: x, y, width, height, as doubles.
        let viewport = [0, 0, width, height]
        let rendered = library.renderDocument(handle, context, viewport, &error)
        library.destroy(context)
        guard rendered != 0 else { throw Failure(message: "librsvg cannot draw the SVG: \(message(error))") }
        let status = path.withCString { library.writeToPNG(surface, $0) }
        guard status == 0 else {
            let reason = library.statusToString(status).map { String(cString: $0) } ?? "cairo status \(status)"
            throw Failure(message: reason)
        }
        return (Int(pixelsWide), Int(pixelsHigh))
    }

    /// `GError.message`: the struct is `{GQuark domain; gint code; gchar *message}`.
    private static func message(_ error: UnsafeMutableRawPointer?) -> String {
        guard let error else { return "no reason given" }
        let text = error.load(fromByteOffset: MemoryLayout<UInt32>.stride * 2, as: UnsafePointer<CChar>?.self)
        return text.map { String(cString: $0) } ?? "no reason given"
    }

    /// The functions, looked up once.
    private struct Library {
        typealias NewFromData = @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> UnsafeMutableRawPointer?
        typealias IntrinsicSize = @convention(c) (UnsafeMutableRawPointer, UnsafeMutablePointer<Double>, UnsafeMutablePointer<Double>) -> Int32
        typealias RenderDocument = @convention(c) (
            UnsafeMutableRawPointer, UnsafeMutableRawPointer, UnsafePointer<Double>, UnsafeMutablePointer<UnsafeMutableRawPointer?>
        ) -> Int32
        typealias Unref = @convention(c) (UnsafeMutableRawPointer) -> Void
        typealias ImageSurfaceCreate = @convention(c) (Int32, Int32, Int32) -> UnsafeMutableRawPointer?
        typealias Create = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
        typealias WriteToPNG = @convention(c) (UnsafeMutableRawPointer, UnsafePointer<CChar>) -> Int32
        typealias StatusToString = @convention(c) (Int32) -> UnsafePointer<CChar>?

        var newFromData: NewFromData
        var intrinsicSize: IntrinsicSize
        var renderDocument: RenderDocument
        var unref: Unref
        var imageSurfaceCreate: ImageSurfaceCreate
        var create: Create
        var destroy: Unref
        var surfaceDestroy: Unref
        var writeToPNG: WriteToPNG
        var statusToString: StatusToString

        static func load() throws(Failure) -> Library {
            let missing = "--png needs librsvg 2.52 or later and cairo at run time (Debian: librsvg2-2 and libcairo2)"
            func open(_ name: String) throws(Failure) -> UnsafeMutableRawPointer {
                guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
                    throw Failure(message: "\(missing): \(dlerror().map { String(cString: $0) } ?? "cannot load \(name)")")
                }
                return handle
            }
            let rsvg = try open("librsvg-2.so.2"), cairo = try open("libcairo.so.2"), gobject = try open("libgobject-2.0.so.0")
            func symbol<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) throws(Failure) -> T {
                guard let address = dlsym(library, name) else { throw Failure(message: "\(missing): \(name) not found") }
                return unsafeBitCast(address, to: type)
            }
            return Library(
                newFromData: try symbol(rsvg, "rsvg_handle_new_from_data", as: NewFromData.self),
                intrinsicSize: try symbol(rsvg, "rsvg_handle_get_intrinsic_size_in_pixels", as: IntrinsicSize.self),
                renderDocument: try symbol(rsvg, "rsvg_handle_render_document", as: RenderDocument.self),
                unref: try symbol(gobject, "g_object_unref", as: Unref.self),
                imageSurfaceCreate: try symbol(cairo, "cairo_image_surface_create", as: ImageSurfaceCreate.self),
                create: try symbol(cairo, "cairo_create", as: Create.self),
                destroy: try symbol(cairo, "cairo_destroy", as: Unref.self),
                surfaceDestroy: try symbol(cairo, "cairo_surface_destroy", as: Unref.self),
                writeToPNG: try symbol(cairo, "cairo_surface_write_to_png", as: WriteToPNG.self),
                statusToString: try symbol(cairo, "cairo_status_to_string", as: StatusToString.self))
        }
    }
}
