import CHapticSynth
import HapticKit

// The three handle tables and the conversions between C's opaque pointers and handles.

let engineTable = HandleTable<CEngine>(kind: .engine, capacity: 1 << 16)
let patternTable = HandleTable<CPattern>(kind: .pattern, capacity: 1 << 20)
let playerTable = HandleTable<CPlayer>(kind: .player, capacity: 1 << 20)

extension OpaquePointer {
    /// The pointer C sees for `handle`.
    init?(handle: UInt64) { self.init(bitPattern: UInt(handle)) }
}

/// The handle a pointer from C stands for (0 for NULL).
func handle(_ pointer: OpaquePointer?) -> UInt64 { UInt64(UInt(bitPattern: Int(bitPattern: pointer))) }

extension HandleTable {
    /// Runs `body` with the object `pointer` names (refused, naming `what`, when it names none).
    func with<R>(_ pointer: OpaquePointer?, _ what: String, _ body: (Object) throws(Failure) -> R) throws(Failure) -> R {
        let outcome = withObject(handle(pointer)) { object in Result { () throws(Failure) -> R in try body(object) } }
        switch outcome {
        case .success(let result): return try result.get()
        case .failure(let refused): throw refused.problem.failure(what, kind)
        }
    }

    /// Stores `object` and writes its handle to `out`.
    func give(_ object: Object, to out: UnsafeMutablePointer<OpaquePointer?>) throws(Failure) {
        guard let handle = insert(object) else {
            throw Failure(HS_ERR_LIMIT, "\(capacity) handles of this kind are open; free some first")
        }
        out.pointee = OpaquePointer(handle: handle)
    }

    /// Ends the handle `pointer` and hands its object back (refused, naming `what`, when it names none).
    func take(_ pointer: OpaquePointer?, _ what: String) throws(Failure) -> Object {
        switch remove(handle(pointer)) {
        case .success(let object): return object
        case .failure(let refused): throw refused.problem.failure(what, kind)
        }
    }
}
