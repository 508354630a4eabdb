// The studio's HTTP/JSON API (docs/studio.md): each route reads its arguments, calls the
// Studio (HapticStudioCore) or an action (StudioActions, which the WebSocket calls too), and
// answers its result as JSON, or a refusal as {"error": ...} with a 4xx status. Nothing here
// decides anything about sounds, patterns or files.

import Foundation
import HTTPTypes
import HapticStudioCore
import Hummingbird

struct StudioAPI {
    let studio: Studio
    let assets: WebAssets
    let audition: Audition
    let actions: StudioActions

    /// The body of an action on one sound.
    struct NameBody: Decodable { var name: String }
    struct AnalyseBody: Decodable {
        var name: String
        var settings: StudioSettings
    }
    struct EditBody: Decodable {
        var name: String
        var edit: EditOperation
    }
    struct SaveBody: Decodable {
        var name: String
        var haptic: Bool?
    }
    /// A selection to audition: seconds of the sound (absent: the converted range).
    struct PlayBody: Decodable {
        var start: Double?
        var end: Double?
        var loop: Bool?
    }

    func add(to router: Router<BasicRequestContext>) {
        for (name, file) in assets.files {
            let path = name == "index.html" ? "/" : "/\(name)"
            router.get(RouterPath(path)) { _, _ in
                Response(
                    status: .ok, headers: [.contentType: file.contentType, .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
            }
        }
        router.get("/api/files") { _, _ in await json { await studio.list() } }
        router.get("/api/sound") { request, _ in await json { try await studio.open(try query(request, "name")) } }
        router.get("/api/ladder") { request, _ in await json { try await studio.ladder(try query(request, "name")) } }
        router.get("/api/waveform") { request, _ in await respond { jsonResponse(try studio.waveformJSON(try query(request, "name"))) } }
        router.get("/api/pattern") { request, _ in
            await respond {
                let text = try await studio.pattern(try query(request, "name"), format: request.uri.queryParameters.get("format") ?? "ahap")
                return Response(
                    status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
        // POST /api/analyse, /api/edit, /api/undo, /api/redo, /api/save: the JSON body is the action's arguments.
        for action in [StudioActions.Action.analyse, .edit, .undo, .redo, .save] {
            router.post(RouterPath("/api/\(action.rawValue)")) { request, _ in await run(action, request) }
        }
        // The audition (Audition): the name is the rest of the path, URL-encoded ("sub%2Fboom.wav").
        router.post("/api/sounds/{name}/play") { request, context in
            await run(.play, request) { try pathName(context.parameters.get("name")) }
        }
        router.post("/api/stop") { _, _ in await run(.stop, nil) }
        router.get("/api/transport") { _, _ in await run(.transport, nil) }
    }

    /// An action with the request's body as its arguments (none: `{}`).
    func run(_ action: StudioActions.Action, _ request: Request?, name: () throws -> String? = { nil }) async -> Response {
        await respond {
            var arguments = Data("{}".utf8)
            if let request { arguments = try await body(request) }
            return jsonResponse(try await actions.run(action, arguments, name: try name(), source: "the request body"))
        }
    }

    /// A name given as a path segment, URL-encoded (its "/" as %2F).
    func pathName(_ segment: String?) throws(StudioError) -> String {
        guard let segment, let name = segment.removingPercentEncoding, !name.isEmpty else {
            throw StudioError(400, "the path needs the sound's name, URL-encoded: /api/sounds/NAME/play")
        }
        return name
    }

    func query(_ request: Request, _ name: String) throws(StudioError) -> String {
        guard let value = request.uri.queryParameters.get(name) else { throw StudioError(400, "the query needs \(name)=") }
        return value
    }

    /// The request's body, bounded.
    func body(_ request: Request) async throws -> Data {
        var request = request
        do { return Data(try await request.collectBody(upTo: StudioGuard<BasicRequestContext>.maxBody).readableBytesView) } catch {
            throw StudioError(413, "the request body is larger than \(StudioGuard<BasicRequestContext>.maxBody) bytes")
        }
    }

    /// A decoding error in one line: what was wrong, and where.
    static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String { path.isEmpty ? "" : " at " + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let c): return "missing \(key.stringValue)\(at(c.codingPath))"
        case .typeMismatch(_, let c), .valueNotFound(_, let c): return "\(c.debugDescription)\(at(c.codingPath))"
        case .dataCorrupted(let c): return "not valid JSON\(at(c.codingPath))"
        @unknown default: return "not valid"
        }
    }

    func json(_ make: () async throws -> some Encodable) async -> Response {
        await respond {
            jsonResponse(try JSONEncoder().encode(try await make()))
        }
    }

    func jsonResponse(_ data: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    func respond(_ make: () async throws -> Response) async -> Response {
        do {
            return try await make()
        } catch let error as StudioError {
            return errorResponse(HTTPResponse.Status(code: error.status), error.description)
        } catch {
            return errorResponse(.internalServerError, "\(error)")
        }
    }
}
