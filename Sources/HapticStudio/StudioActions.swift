// The studio's actions, one dispatch for the HTTP routes and the WebSocket (docs/studio.md):
// each takes its JSON arguments, calls the Studio or the Audition, and gives its result as JSON
// text, or throws a StudioError. A change to a sound is told to the open sockets (StudioEvents).

import Foundation
import HapticStudioCore

struct StudioActions: Sendable {
    let studio: Studio
    let audition: Audition
    let events: StudioEvents

    enum Action: String, CaseIterable, Sendable {
        case analyse, edit, undo, redo, save, play, stop, transport
    }

    /// Runs `action` with its JSON `arguments` (an object; for `play`, the sound's name is
    /// `name` when the arguments do not hold it: the HTTP route has it in its path). `source`
    /// names the arguments in an error line.
    func run(_ action: Action, _ arguments: Data, name pathName: String? = nil, source: String) async throws -> Data {
        func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws(StudioError) -> T { try decoded(type, data, source) }
        switch action {
        case .analyse:
            let b = try decode(StudioAPI.AnalyseBody.self, arguments)
            return try await changed(b.name, action) { try await studio.analyse(b.name, settings: b.settings) }
        case .edit:
            let b = try decode(StudioAPI.EditBody.self, arguments)
            return try await changed(b.name, action) { try await studio.edit(b.name, b.edit) }
        case .undo:
            let name = try decode(StudioAPI.NameBody.self, arguments).name
            return try await changed(name, action) { try await studio.undo(name) }
        case .redo:
            let name = try decode(StudioAPI.NameBody.self, arguments).name
            return try await changed(name, action) { try await studio.redo(name) }
        case .save:
            let b = try decode(StudioAPI.SaveBody.self, arguments)
            return try await changed(b.name, action) { try await studio.save(b.name, haptic: b.haptic ?? false) }
        case .play:
            let b = try decode(StudioAPI.PlayBody.self, arguments)
            let name = try pathName ?? decode(StudioAPI.NameBody.self, arguments).name
            return try encode(try await audition.play(name, start: b.start, end: b.end, loop: b.loop ?? false))
        case .stop:
            return try encode(await audition.stop())
        case .transport:
            return try encode(await audition.transport())
        }
    }

    private func changed(_ name: String, _ action: Action, _ make: () async throws -> some Encodable) async throws -> Data {
        let result = try encode(try await make())
        events.soundChanged(name, by: action.rawValue)
        return result
    }

    func decoded<T: Decodable>(_ type: T.Type, _ data: Data, _ source: String) throws(StudioError) -> T {
        do { return try JSONDecoder().decode(T.self, from: data) } catch let error as DecodingError {
            throw StudioError(400, "\(source): \(StudioAPI.describe(error))")
        } catch {
            throw StudioError(400, "\(source): \(error)")
        }
    }

    func encode(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }
}
