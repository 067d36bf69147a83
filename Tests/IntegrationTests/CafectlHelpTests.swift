import Foundation
import Testing

/// `cafectl help` is the whole manual; `cafectl <command> --help` lists the flags that command
/// declares, from the declarations the command reads them through.
@Suite
struct CafectlHelpTests {
    func cafectl(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let result = try runCommand(try Platform.binaryDirectory().appendingPathComponent("cafectl"), arguments, environment: environmentWithoutCafeVariables())
        return (result.status, result.out, result.err)
    }

    @Test("help, --help alone, no command, and --help on what is not a command all print the whole manual")
    func manual() throws {
        let manual = try cafectl(["help"])
        #expect(manual.status == 0 && manual.out.hasPrefix("cafectl: operate and drive the Campus Café platform"))
        for arguments in [["--help"], [], ["-h"], ["frobnicate", "--help"], ["keys", "--help"]] {
            let result = try cafectl(arguments)
            #expect(result.status == 0 && result.out == manual.out, "\(arguments)")
        }
    }

    @Test("a command's --help lists its own flags with their defaults and variables, and runs nothing", arguments: [
        (["walk", "--help"], ["--device <text>", "--speed <number>", "--seed <integer>", "env CAFE_CAMPUS, default deploy/campus.json"], ["--item"]),
        (["tail", "order.", "--help"], ["--pretty\n", "--since-seq <integer>", "default 0"], ["--device"]),
        (["kds", "tickets", "--help"], ["--station <text>", "--all <true|false>", "--pretty"], ["--speed"]),
        (["order", "place", "--help"], ["--item <text> (repeatable)", "--channel <app|kiosk|appClip>"], ["--station"]),
        (["keys", "list", "/nonexistent", "--help"], ["--json\n"], ["--owner"]),
    ] as [([String], [String], [String])])
    func commandFlags(_ arguments: [String], _ listed: [String], _ absent: [String]) throws {
        let result = try cafectl(arguments)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.hasPrefix("cafectl \(arguments.dropLast().joined(separator: " ")): its flags"), "\(result.out)")
        for text in listed { #expect(result.out.contains(text), "\(arguments): no \(text) in \(result.out)") }
        for text in absent { #expect(!result.out.contains(text), "\(arguments): \(text) in \(result.out)") }
        #expect(result.out.contains("see cafectl help"))
    }
}
