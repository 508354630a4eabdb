// Who may talk to the studio, checked before every request (the page, its files, the API):
// the random token (Jupyter's way: `?token=` once, which sets a cookie, or an
// `Authorization: Bearer` header), a Host header naming this server (no DNS rebinding), an
// Origin, when a browser sends one, of this server (no cross-site request), a bounded body
// and a bounded rate. A refusal is a JSON error and nothing happens.

import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// The server's allowed names and port (the port is known once the server listens).
final class StudioAddress: Sendable {
    private let port = Mutex(0)
    /// Host names this server answers to (besides "127.0.0.1", "localhost" and "[::1]").
    let extraHosts: [String]

    init(extraHosts: [String]) { self.extraHosts = extraHosts }

    var currentPort: Int { port.withLock { $0 } }
    func set(port value: Int) { port.withLock { $0 = value } }

    /// Whether a Host header value ("host:port") names this server.
    func allows(host: String) -> Bool {
        let p = currentPort
        return (["127.0.0.1", "localhost", "[::1]"] + extraHosts).contains { host.lowercased() == "\($0):\(p)" }
    }
}

/// A refusal as the API answers it.
func errorResponse(_ status: HTTPResponse.Status, _ message: String) -> Response {
    let body = (try? JSONEncoder().encode(["error": message])) ?? Data("{}".utf8)
    return Response(
        status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
        body: .init(byteBuffer: ByteBuffer(bytes: body)))
}

struct StudioGuard<Context: RequestContext>: RouterMiddleware {
    static var cookieName: String { "hapticsynth_studio_token" }
    /// The largest request body taken (an edit or settings: well under a kilobyte).
    static var maxBody: Int { 64 * 1024 }

    let token: String
    let address: StudioAddress
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard limiter.take() else { return errorResponse(.tooManyRequests, "too many requests; slow down") }
        if let (status, message) = refusal(request) { return errorResponse(status, message) }
        if let given = request.uri.queryParameters.get("token"), equalInConstantTime(given, token), request.method == .get,
            !request.uri.path.hasPrefix("/api/")
        {
            // The token once in the address: kept as a cookie, and the page shown without it
            // (always at "/": a path from the request, "//elsewhere", would redirect off site).
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.setCookie(Cookie(name: Self.cookieName, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        return try await next(request, context)
    }

    /// Why `request` is refused, the rate aside (nil: it may go on); the WebSocket's upgrade
    /// (StudioSocketChannel) asks this too.
    func refusal(_ request: Request) -> (HTTPResponse.Status, String)? {
        // (HTTP/1's Host header is the request's authority in HTTPTypes.)
        guard let host = request.head.authority, address.allows(host: host) else {
            return (.forbidden, "Host \(request.head.authority ?? "(none)"): not this server's address")
        }
        if let origin = request.headers[.origin], !(origin.hasPrefix("http://") && address.allows(host: String(origin.dropFirst(7)))) {
            return (.forbidden, "Origin \(origin): requests from other sites are refused")
        }
        if request.headers[values: HTTPField.Name("Sec-Fetch-Site")!].contains("cross-site") {
            return (.forbidden, "a cross-site request is refused")
        }
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maxBody {
            return (.contentTooLarge, "the request body is \(length) bytes; at most \(Self.maxBody)")
        }
        if let given = request.uri.queryParameters.get("token"), equalInConstantTime(given, token) { return nil }
        if let cookie = request.cookies[Self.cookieName]?.value, equalInConstantTime(cookie, token) { return nil }
        if let authorization = request.headers[.authorization] {
            for scheme in ["Bearer ", "token "] where authorization.hasPrefix(scheme) {
                if equalInConstantTime(String(authorization.dropFirst(scheme.count)), token) { return nil }
            }
        }
        return (.unauthorized, "a token is needed: open the address hapticsynth studio printed (with ?token=)")
    }

    func equalInConstantTime(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A token bucket over all requests: `perSecond` on average, bursts of `burst`.
final class RateLimiter: Sendable {
    private let state: Mutex<(tokens: Double, last: ContinuousClock.Instant)>
    let perSecond: Double
    let burst: Double

    init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
        state = Mutex((burst, ContinuousClock.now))
    }

    func take() -> Bool {
        state.withLock { s in
            let now = ContinuousClock.now
            let elapsed = now - s.last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            s.tokens = min(burst, s.tokens + seconds * perSecond)
            s.last = now
            guard s.tokens >= 1 else { return false }
            s.tokens -= 1
            return true
        }
    }
}

/// A random token: 24 bytes as hex.
func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<24).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
}
