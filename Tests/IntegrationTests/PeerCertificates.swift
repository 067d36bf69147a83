import Foundation

/// What a strict local peer serves TLS with, made by the `openssl` command line in `folder`: a test
/// CA (`ca.pem`, the client's only trust) and a certificate for 127.0.0.1 and localhost signed by
/// it (`server.pem`, `server.key`). The APNs and webhook peers share it.
enum PeerCertificates {
    static func make(in folder: URL, caName: String) throws {
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        try openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"),
                     "-days", "2", "-subj", "/CN=\(caName)"])
        try openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"),
                     "-subj", "/CN=127.0.0.1"])
        try Data("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n".utf8).write(to: folder.appendingPathComponent("ext.cnf"))
        try openssl(["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial", "-out", path("server.pem"),
                     "-days", "2", "-extfile", path("ext.cnf")])
    }

    static func openssl(_ arguments: [String]) throws {
        let result = try runCommand(URL(fileURLWithPath: "/usr/bin/openssl"), arguments)
        guard result.status == 0 else { throw PlatformError("openssl \(arguments.joined(separator: " ")): \(result.err)") }
    }
}
