import Foundation
import Testing

/// deploy/Dockerfile read statically (no Docker engine here): the stages, what the runtime image
/// installs, who it runs as, and that it ships every executable compose asks for.
@Suite
struct ComposeDockerfileTests {
    let dockerfile: Dockerfile
    let products: [String]

    init() throws {
        dockerfile = try Dockerfile.load()
        products = try DeployFiles.products()
    }

    var build: Dockerfile.Stage { dockerfile.stages.first! }
    var runtime: Dockerfile.Stage { dockerfile.stages.last! }

    @Test("a Swift build stage and a slim runtime stage on the same Debian release (bookworm)")
    func stages() throws {
        try #require(dockerfile.stages.count >= 2)
        let releases = dockerfile.stages.map { Dockerfile.release(of: $0.image) }
        #expect(releases.allSatisfy { $0 == "bookworm" }, "stage images \(dockerfile.stages.map(\.image)) must all be bookworm: the binaries link its libzmq, SQLite and glibc")
        #expect(build.image.hasPrefix("swift:6."), "\(build.image)")
        #expect(runtime.image.hasSuffix("-slim"), "\(runtime.image)")
        #expect(build.name != nil, "the build stage is named so the runtime can COPY --from it")
    }

    @Test("the build stage installs the -dev libraries and compiles a release build of everything")
    func releaseBuild() throws {
        #expect(build.aptPackages.isSuperset(of: ["libzmq3-dev", "libsqlite3-dev", "libssl-dev", "pkg-config"]), "\(build.aptPackages)")
        let builds = build.all("RUN").filter { $0.contains("swift build") && !$0.contains("--show-bin-path") }
        try #require(builds.count == 1, "\(builds)")
        let command = builds[0]
        #expect(command.contains("-c release"))
        #expect(!command.contains("--product"), "one build of every product")
        // One shared Swift runtime in the image, not a static copy (with ICU data) in each binary.
        #expect(!command.contains("--static-swift-stdlib"), "\(command)")
        // SwiftPM refuses a manifest whose target folders are missing, so the build copies each one.
        let copied = Set(build.all("COPY").flatMap { $0.split(separator: " ").dropLast().map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: "./")) } })
        for folder in try DeployFiles.manifestFolders().union(["Package.swift"]) {
            #expect(copied.contains(folder), "the build stage does not COPY \(folder)")
        }
    }

    @Test("the runtime carries the Swift libraries the binaries load (ldd in the build stage), once, where the loader finds them")
    func sharedSwiftRuntime() throws {
        let buildName = try #require(build.name)
        let staging = build.all("RUN").joined(separator: "\n")
        #expect(staging.contains("ldd "), "the build stage must list the Swift libraries the binaries load")
        #expect(staging.contains("swift-backtrace"), "the build stage must stage the backtracer")
        let copies = runtime.all("COPY").filter { $0.hasPrefix("--from=\(buildName) ") }
        let libraryCopy = try #require(copies.first { $0.contains("/staging/swift/") }, "no COPY of the staged Swift libraries: \(copies)")
        let folder = try #require(libraryCopy.split(separator: " ").last.map(String.init))
        let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        #expect(runtime.all("RUN").contains { $0.contains(trimmed) && $0.contains("ld.so.conf.d") && $0.contains("ldconfig") },
                "\(trimmed) must be registered with the dynamic loader (its RUNPATH names the build image's toolchain)")
        #expect(runtime.all("RUN").contains { $0.contains("ldd ") && $0.contains("not found") }, "the runtime stage checks every binary resolves its libraries")
        // The backtracer SWIFT_BACKTRACE names is one the image copies.
        let environment = runtime.all("ENV").joined(separator: " ")
        let backtracer = try #require(environment.firstMatch(of: #/swift-backtrace=(\S+)/#).map { String($0.output.1) })
        #expect(copies.contains { $0.hasSuffix(" \(backtracer)") }, "SWIFT_BACKTRACE names \(backtracer), which no COPY puts there")
    }

    @Test("the runtime installs libzmq5, libsqlite3-0 and tzdata and runs as a non-root user")
    func runtimeImage() throws {
        #expect(runtime.aptPackages.isSuperset(of: ["libzmq5", "libsqlite3-0", "tzdata"]), "\(runtime.aptPackages)")
        #expect(runtime.aptPackages.allSatisfy { !$0.hasSuffix("-dev") }, "no -dev packages at run time: \(runtime.aptPackages)")
        let user = try #require(runtime.all("USER").last, "the runtime sets no USER: it would run as root")
        let name = String(user.split(separator: ":")[0])
        #expect(!["root", "0"].contains(name))
        #expect(runtime.all("RUN").contains { $0.contains("useradd") && $0.contains(name) } || Int(name) != nil, "USER \(name) is never created")
        #expect(!runtime.all("WORKDIR").isEmpty)
        #expect(!runtime.all("VOLUME").isEmpty)
    }

    @Test("every product is copied into /usr/local/bin of the runtime image; the default command is one of them")
    func everyProductShipped() throws {
        let buildName = try #require(build.name)
        var copied = Set<String>()
        for copy in runtime.all("COPY") where copy.hasPrefix("--from=\(buildName) ") {
            let words = copy.split(separator: " ").map(String.init).filter { !$0.hasPrefix("--") }
            guard let destination = words.last, destination == "/usr/local/bin/" else { continue }
            copied.formUnion(words.dropLast().map { URL(fileURLWithPath: $0).lastPathComponent })
        }
        for product in products {
            #expect(copied.contains(product), "\(product) is not copied into the runtime image")
            #expect(build.all("RUN").contains { $0.contains(" \(product) ") || $0.contains(" \(product);") }, "the build stage does not stage \(product)")
        }
        let command = try #require(runtime.all("CMD").last)
        let words = try #require(try YAMLSubset.parse("cmd: \(command)")["cmd"]?.strings, "CMD must be in exec form: \(command)")
        #expect(products.contains(words.first ?? ""), "CMD runs \(words)")
        #expect(runtime.all("ENTRYPOINT").isEmpty, "compose picks the executable with command; an entrypoint would prefix it")
    }

    @Test("the image and the compose file agree: exposed ports, data volume, campus path, variables")
    func matchesCompose() throws {
        let compose = try ComposeFile.load()
        let exposed = Set(runtime.all("EXPOSE").flatMap { $0.split(separator: " ").compactMap { Int($0.split(separator: "/")[0]) } })
        for service in compose.services where !service.isOwnImage {
            for port in service.ports { #expect(exposed.contains(port.container), "\(service.name) publishes \(port.container), which the image does not EXPOSE") }
        }
        let volume = try #require(runtime.all("VOLUME").last)
        for service in compose.services where !service.isOwnImage {
            for mount in service.mounts where mount.isNamedVolume && !mount.readOnly { #expect(mount.target == volume, "\(service.name) mounts \(mount.source) at \(mount.target), not at the image's VOLUME \(volume)") }
        }
        // COPY sources outside the build stage come from the context (the repository root).
        for copy in runtime.all("COPY") where !copy.hasPrefix("--from") {
            let source = String(copy.split(separator: " ")[0])
            #expect(FileManager.default.fileExists(atPath: DeployFiles.repositoryRoot.appendingPathComponent(source).path), "COPY \(source): not in the build context")
        }
        // Image-wide variables must mean something to at least one executable.
        var read = Set<String>()
        for product in products where product != "cafectl" { read.formUnion(try DeployFiles.environmentNames(of: product)) }
        for env in runtime.all("ENV") {
            for name in env.matches(of: #/(CAFE_[A-Z0-9_]+)=/#).map({ String($0.output.1) }) {
                #expect(read.contains(name), "the image sets \(name), which no executable reads")
            }
        }
    }
}
