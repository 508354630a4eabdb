// The server's connections: HTTP/1, and the WebSocket upgrade of GET /api/socket. As
// hummingbird-websocket's HTTP1WebSocketUpgradeChannel, except for a refused upgrade: that one
// answers any refused upgrade "400" with no body (NIO's upgrade handler keeps no refused
// request to pass on), where the studio answers the refusal as its HTTP API does (401 no token,
// 403 Host or Origin, 429, 503 too many sockets: the status and its JSON line).

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
@_spi(WSInternal) import WSCore

struct StudioSocketChannel: ServerChildChannel, HTTPChannelHandler {
    typealias SocketHandler = @Sendable (NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, Logger) async -> Void
    enum Connection: Sendable {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, SocketHandler, Logger)
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, HTTPResponse.Status, String)
    }
    struct Value: ServerChildChannelValue {
        let connection: EventLoopFuture<Connection>
        let channel: any Channel
    }
    struct Context: WebSocketContext { let logger: Logger }

    let responder: HTTPChannelHandler.Responder
    let configuration: WebSocketServerConfiguration
    /// Why an upgrade request is refused (nil: taken).
    let refusal: @Sendable (HTTPRequest) -> (HTTPResponse.Status, String)?
    let serve: WebSocketDataHandler<Context>

    static func builder(
        configuration: WebSocketServerConfiguration, refusal: @escaping @Sendable (HTTPRequest) -> (HTTPResponse.Status, String)?,
        serve: @escaping WebSocketDataHandler<Context>
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in Self(responder: responder, configuration: configuration, refusal: refusal, serve: serve) }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let refused = NIOLockedValueBox<(HTTPResponse.Status, String)?>(nil)
            let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
                maxFrameSize: configuration.maxFrameSize,
                shouldUpgrade: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        let answer = (try? HTTPRequest(head, secure: false, splitCookie: false)).map(refusal) ?? (.badRequest, "not a valid request")
                        refused.withLockedValue { $0 = answer }
                        return answer == nil ? HTTPHeaders() : nil
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let socket = try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return Connection.webSocket(socket, handle, logger)
                    }
                })
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        if let (status, message) = refused.withLockedValue({ $0 }) { return Connection.refused(http, status, message) }
                        return Connection.http(http)
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration<Connection>(upgradeConfiguration: upgrade)
            pipeline.enablePipelining = false  // (as Hummingbird's: NIOAsyncChannel pipelines HTTP)
            pipeline.enableErrorHandling = false
            pipeline.enableResponseHeaderValidation = false
            return Value(connection: try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline), channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.connection.get() {
            case .webSocket(let socket, let handler, let logger): await handler(socket, logger)
            case .http(let http): await handleHTTP(asyncChannel: http, logger: logger)
            case .refused(let http, let status, let message): try await refuse(http, status, message)
            }
        } catch {
            logger.debug("connection ended before its first request", metadata: ["error": "\(error)"])
        }
    }

    /// The refusal as the API answers one (errorResponse's JSON), then the connection closes.
    func refuse(_ http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, _ status: HTTPResponse.Status, _ message: String) async throws {
        let data = (try? JSONEncoder().encode(["error": message])) ?? Data("{}".utf8)
        let body = ByteBuffer(bytes: data)
        let head = HTTPResponse(status: status, headerFields: [
            .contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .connection: "close", .cacheControl: "no-store",
        ])
        try await http.executeThenClose { _, outbound in try await outbound.write(contentsOf: [.head(head), .body(body), .end(nil)]) }
    }

    @Sendable func handle(_ socket: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, _ logger: Logger) async {
        do {
            _ = try await WebSocketHandler.handle(
                type: .server,
                configuration: .init(
                    extensions: [], autoPing: configuration.autoPing, closeTimeout: configuration.closeTimeout,
                    validateUTF8: configuration.validateUTF8, maxFrameSize: configuration.maxFrameSize),
                asyncChannel: socket, context: Context(logger: logger), handler: serve)
        } catch {
            logger.debug("WebSocket ended", metadata: ["error": "\(error)"])
        }
    }
}
