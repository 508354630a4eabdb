// The studio's HTTP/JSON API (docs/studio.md): each route reads its arguments, calls the
// Studio (HapticStudioCore), and answers its result as JSON, or a refusal as {"error": ...}
// with a 4xx status. Nothing here decides anything about sounds, patterns or files.

import Foundation
import HTTPTypes
import HapticStudioCore
import Hummingbird

struct StudioAPI {
    let studio: Studio
    let assets: WebAssets
    let audition: Audition

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
        router.get("/api/waveform") { request, _ in await json { try studio.waveform(try query(request, "name")) } }
        router.get("/api/pattern") { request, _ in
            await respond {
                let text = try await studio.pattern(try query(request, "name"), format: request.uri.queryParameters.get("format") ?? "ahap")
                return Response(
                    status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
        router.post("/api/analyse") { request, context in
            await json { let b = try await body(AnalyseBody.self, request); return try await studio.analyse(b.name, settings: b.settings) }
        }
        router.post("/api/edit") { request, _ in
            await json { let b = try await body(EditBody.self, request); return try await studio.edit(b.name, b.edit) }
        }
        router.post("/api/undo") { request, _ in await json { try await studio.undo(try await body(NameBody.self, request).name) } }
        router.post("/api/redo") { request, _ in await json { try await studio.redo(try await body(NameBody.self, request).name) } }
        router.post("/api/save") { request, _ in
            await json { let b = try await body(SaveBody.self, request); return try await studio.save(b.name, haptic: b.haptic ?? false) }
        }
        // The audition (Audition): the name is the rest of the path, URL-encoded ("sub%2Fboom.wav").
        router.post("/api/sounds/{name}/play") { request, context in
            await json {
                let name = try pathName(context.parameters.get("name"))
                let b = try await body(PlayBody.self, request)
                return try await audition.play(name, start: b.start, end: b.end, loop: b.loop ?? false)
            }
        }
        router.post("/api/stop") { _, _ in await json { await audition.stop() } }
        router.get("/api/transport") { _, _ in await json { await audition.transport() } }
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

    func body<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        var request = request
        let buffer: ByteBuffer
        do { buffer = try await request.collectBody(upTo: StudioGuard<BasicRequestContext>.maxBody) } catch {
            throw StudioError(413, "the request body is larger than \(StudioGuard<BasicRequestContext>.maxBody) bytes")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let error as DecodingError {
            throw StudioError(400, "the request body: \(Self.describe(error))")
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
            let data = try JSONEncoder().encode(try await make())
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
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
