/// The screens' files, compiled into the edge (`PackageResources`, SwiftPM's `embedInCode`): each
/// by the name a page asks for, with its media type.
public enum EdgeWeb {
    /// One file: its bytes and `Content-Type`.
    public struct File: Sendable {
        public let bytes: [UInt8]
        public let contentType: String
    }

    /// The files by name (`kitchen.html`, `live.js`, …).
    public static let files: [String: File] = [
        "index.html": File(bytes: PackageResources.index_html, contentType: html),
        "kitchen.html": File(bytes: PackageResources.kitchen_html, contentType: html),
        "board.html": File(bytes: PackageResources.board_html, contentType: html),
        "status.html": File(bytes: PackageResources.status_html, contentType: html),
        "screens.css": File(bytes: PackageResources.screens_css, contentType: "text/css; charset=utf-8"),
        "live.js": File(bytes: PackageResources.live_js, contentType: javascript),
        "kitchen.js": File(bytes: PackageResources.kitchen_js, contentType: javascript),
        "board.js": File(bytes: PackageResources.board_js, contentType: javascript),
        "status.js": File(bytes: PackageResources.status_js, contentType: javascript),
    ]

    static let html = "text/html; charset=utf-8"
    static let javascript = "text/javascript; charset=utf-8"
}
