import EdgeCore
import EdgeWeb
import Messages

/// The screens' pages on the edge's own paths, outside `/v1`: `/` (links to the three),
/// `/kitchen`, `/board`, `/status`, and `/web/<file>` for their styles and scripts. A page holds
/// no data: it signs in with the token its user gives it and reads `/v1/screens/…`.
public enum WebPages {
    /// The page names and the file each is.
    static let pages = ["": "index.html", "kitchen": "kitchen.html", "board": "board.html", "status": "status.html"]

    /// The answer when `uri` names a page or a page's file; nil for anything else (the API's).
    public static func answer(method: String, uri: String) -> EdgeResponse? {
        guard let target = try? RequestTarget.parse(uri) else { return nil }
        let segments = target.segments
        let name: String?
        if segments.isEmpty || (segments.count == 1 && pages[segments[0]] != nil) {
            name = pages[segments.first ?? ""]
        } else if segments.count == 2, segments[0] == "web" {
            name = segments[1]
        } else {
            return nil
        }
        guard let name, let file = EdgeWeb.files[name] else {
            return segments.first == "web" ? Problem(.httpNotFound, "no file \(Quoting.quoted(segments.joined(separator: "/")))").response : nil
        }
        guard method == "GET" || method == "HEAD" else {
            return Problem(.httpMethodNotAllowed, "a page is read with GET", headers: [("Allow", "GET, HEAD")]).response
        }
        return EdgeResponse(status: 200, headers: [
            ("Content-Type", file.contentType),
            ("Cache-Control", "no-cache"),
            // Everything a page uses comes from this edge: no script, style or font from elsewhere.
            ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"),
            ("X-Content-Type-Options", "nosniff"),
        ], body: method == "HEAD" ? [] : file.bytes)
    }
}
