import StratusServices
import Foundation
import Hummingbird
import HTTPTypes

/// The server's own small pages for what happens outside an app (the links in account mail): plain HTML with
/// inline style, no script but the sign-in page's (``HostedScript``), not framed, not cached, and no referrer (their addresses hold tokens).
enum HostedPage {
    /// A page with a title, the app's name above it, and `body` (HTML the caller escaped).
    /// - Parameters:
    ///   - formTargets: origins besides this server's that its forms may lead to (a sign-in's redirect).
    ///   - script: whether the page runs ``HostedScript`` (which then may call this server).
    static func render(
        title: String, appName: String, body: String, status: HTTPResponse.Status = .ok, formTargets: [String] = [], script: Bool = false
    ) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · \(escape(appName))</title>
            <style>
            body{font:16px/1.5 -apple-system,system-ui,sans-serif;background:#f5f5f7;color:#1d1d1f;margin:0;display:flex;justify-content:center}
            main{background:#fff;margin:8vh 16px;padding:32px;border-radius:14px;max-width:420px;width:100%;box-shadow:0 1px 4px #0002}
            .app{color:#6e6e73;font-size:14px;margin:0 0 4px}h1{font-size:24px;margin:0 0 16px}
            label{display:block;margin:12px 0 4px;font-weight:600}input{width:100%;box-sizing:border-box;padding:10px;font-size:16px;border:1px solid #c7c7cc;border-radius:8px}
            button{margin-top:20px;width:100%;padding:12px;font-size:16px;border:0;border-radius:8px;background:#0071e3;color:#fff;cursor:pointer}
            button.secondary{margin-top:10px;background:#fff;color:#0071e3;border:1px solid #0071e3}
            a.button{display:block;box-sizing:border-box;margin-top:10px;width:100%;padding:12px;font-size:16px;border-radius:8px;text-align:center;text-decoration:none;background:#fff;color:#0071e3;border:1px solid #0071e3}
            .error{color:#c00}
            </style></head>
            <body><main><p class="app">\(escape(appName))</p><h1>\(escape(title))</h1>
            \(body)
            </main>\(script ? "<script src=\"\(HostedScript.path)\" defer></script>" : "")</body></html>
            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let targets = (["'self'"] + formTargets).joined(separator: " ")
        let scripts = script ? "; script-src 'self'; connect-src 'self'" : ""
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'\(scripts); form-action \(targets); frame-ancestors 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    /// A paragraph of text.
    static func paragraph(_ text: String, class name: String? = nil) -> String {
        "<p\(name.map { " class=\"\($0)\"" } ?? "")>\(escape(text))</p>"
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }

    /// A URL-encoded form body, up to 16 KB.
    static func form(_ request: Request) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: RequestLimits.formBody)
        var components = URLComponents()
        components.percentEncodedQuery = String(buffer: buffer).replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in components.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        return fields
    }

    static func escape(_ text: String) -> String {
        MailRendering.escapeHTML(text)
    }
}
