import Foundation
import Messages
import ServiceRuntime
import ZeroMQ

/// `cafectl backup DIR [service...]`: a consistent copy of each service's database, taken while
/// it runs (`backup.start`, on the service's own thread) and fetched over its request socket in
/// chunks (`backup.read`), so the copies land where cafectl runs, whichever host or container
/// each service is on. Writes `DIR/<instance>.sqlite` and `DIR/<instance>.manifest.json` (service,
/// instance, epoch, last seq per stream, size, SHA-256), each renamed into place only once its
/// SHA-256 matches what the service computed. Exit 1 when any service's copy failed.
enum BackupCommand {
    static let waitSeconds = Option.count("wait-seconds", 1...86_400, default: 900, help: "how long each service's copy may take before cafectl gives up")
    static let flags = [CommandFlag(waitSeconds)]
    /// Every process with a database: the five services and the edge (its sessions).
    static var targets: [(name: String, option: Option<String>)] {
        Endpoints.services.filter { $0.name != "bus" } + [(name: "edge", option: Endpoints.edge)]
    }

    static func run(_ args: CommandArguments, endpoints: Endpoints) throws -> Int32 {
        let values = try args.command(Self.flags)
        guard args.words.count >= 2 else { throw UsageError("usage: cafectl backup DIR [service...]") }
        let folder = args.words[1], names = Array(args.words.dropFirst(2))
        let selected = targets.filter { names.isEmpty || names.contains($0.name) || names.contains($0.option.name) }
        guard !selected.isEmpty else { throw UsageError("no service with a database named \(names.joined(separator: ", ")); they are: \(targets.map(\.name).joined(separator: ", "))") }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw UsageError("cannot make \(folder): \(error.localizedDescription)")
        }
        let context = try Context()
        var failed = false
        for target in selected {
            let started = Date()
            do {
                let client = try endpoints.client(target.option, context: context, timeoutMilliseconds: max(endpoints.timeoutMilliseconds, 10_000))
                defer { client.close() }
                let manifest = try fetch(client, into: folder, wait: Double(values[Self.waitSeconds]))
                let streams = manifest.streams.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                print("\(target.name)  \(manifest.instance)  \(manifest.size) bytes  sha256 \(manifest.sha256.prefix(16))…  epoch \(manifest.epoch)"
                      + "  streams \(streams.isEmpty ? "-" : streams)  \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
            } catch {
                failed = true
                let text = (error as? ServiceError).map { "\($0.code): \($0.message)" } ?? "\(error)"
                FileHandle.standardError.write(Data("cafectl: backup of \(target.name) failed: \(text)\n".utf8))
            }
        }
        return failed ? 1 : 0
    }

    /// Starts a copy, waits for it, reads it chunk by chunk into `folder`, checks it, and writes
    /// its manifest; returns the manifest.
    static func fetch(_ client: RequestClient, into folder: String, wait: Double) throws -> BackupManifest {
        let started = try client.call(Op.backupStart, BackupStartRequest(), as: BackupStatus.self)
        let deadline = Date().addingTimeInterval(wait)
        var chunk = try client.call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: 0), as: BackupChunk.self)
        while chunk.status.manifest == nil {
            guard Date() < deadline else { throw ServiceError(.backupFailed, "the copy was not ready within \(Int(wait)) s (\(chunk.status.pagesCopied) of \(chunk.status.pagesTotal) pages)") }
            usleep(100_000)
            chunk = try client.call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: 0), as: BackupChunk.self)
        }
        let manifest = chunk.status.manifest!
        let path = (folder as NSString).appendingPathComponent("\(manifest.instance).sqlite")
        let part = path + ".part"
        guard FileManager.default.createFile(atPath: part, contents: nil), let file = FileHandle(forWritingAtPath: part) else { throw UsageError("cannot write \(part)") }
        var digest = SHA256Stream()
        do {
            defer { try? file.close() }
            while true {
                guard let data = Data(base64Encoded: chunk.data), chunk.offset == digest.count else {
                    throw ServiceError(.backupFailed, "chunk at \(chunk.offset) of the copy is not what was asked for")
                }
                if data.isEmpty { break }
                try file.write(contentsOf: data)
                digest.update(data)
                guard digest.count < manifest.size else { break }
                chunk = try client.call(Op.backupRead, BackupReadRequest(backupId: started.backupId, offset: digest.count), as: BackupChunk.self)
            }
            try file.synchronize()
        } catch {
            try? FileManager.default.removeItem(atPath: part)
            throw error
        }
        guard digest.count == manifest.size, digest.hex() == manifest.sha256 else {
            try? FileManager.default.removeItem(atPath: part)
            throw ServiceError(.backupFailed, "the copy arrived as \(digest.count) bytes with SHA-256 \(digest.hex()); the service made \(manifest.size) bytes, \(manifest.sha256)")
        }
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: part, toPath: path)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try (encoder.encode(manifest) + Data("\n".utf8)).write(to: URL(fileURLWithPath: BackupRestore.manifestPath(ofCopy: path)), options: .atomic)
        return manifest
    }
}

/// `cafectl restore COPY --data-dir DIR`: puts a service's database back from a copy `cafectl
/// backup` made, with the service stopped (`BackupRestore` says each step and why).
enum RestoreCommand {
    static let dataDir = Option<String?>("data-dir", .path, help: "the stopped service's data folder (its --data-dir)")
    static let flags = [CommandFlag(dataDir)]

    static func run(_ args: CommandArguments) throws -> Int32 {
        let values = try args.command(Self.flags)
        guard args.words.count == 2, let dataDir = values[Self.dataDir] else {
            throw UsageError("usage: cafectl restore COPY.sqlite --data-dir DIR (the manifest COPY.manifest.json beside it)")
        }
        do {
            let outcome = try BackupRestore.restore(copy: args.words[1], dataDir: dataDir)
            let manifest = outcome.manifest
            print("restored \(manifest.instance) into \(outcome.database) from the copy taken at \(manifest.takenAt) (sha256 \(manifest.sha256.prefix(16))… verified)")
            print("new epoch \(outcome.newEpoch) (the copy's was \(manifest.epoch)): consumers replay \(manifest.instance) from the start and skip what they applied")
            if let aside = outcome.replacedAs { print("the replaced database is kept as \(aside)") }
            print("start \(manifest.instance) again; what it did after \(manifest.takenAt) is gone")
            return 0
        } catch let refusal as BackupRestore.Refusal {
            FileHandle.standardError.write(Data("cafectl: restore refused: \(refusal.description)\n".utf8))
            return 1
        }
    }
}
