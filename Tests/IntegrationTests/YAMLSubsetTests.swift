import Testing

/// The reader the compose checks stand on: it must read what compose reads, and refuse what it
/// cannot read rather than guess.
@Suite
struct YAMLSubsetTests {
    @Test("block mappings, block sequences, `- key: value` items, comments and blank lines")
    func blocks() throws {
        let value = try YAMLSubset.parse("""
            # a comment line
            services:
              bus:   # trailing comment
                command: ["bus"]

                ports:
                  - "127.0.0.1:7401:7401"
                  - 7402:7402
                depends_on:
                  db:
                    condition: service_healthy
            list:
            - name: first
              port: 1
            - name: second
            - plain
            empty:
            """)
        #expect(value.keys == ["services", "list", "empty"])
        let bus = try #require(value["services"]?["bus"])
        #expect(bus["command"] == .sequence([.scalar("bus")]))
        #expect(bus["ports"]?.strings == ["127.0.0.1:7401:7401", "7402:7402"])
        #expect(bus["depends_on"]?["db"]?["condition"]?.string == "service_healthy")
        let list = try #require(value["list"]?.items)
        #expect(list.count == 3)
        #expect(list[0].keys == ["name", "port"] && list[0]["port"]?.string == "1")
        #expect(list[1]["name"]?.string == "second")
        #expect(list[2] == .scalar("plain"))
        #expect(value["empty"] == .null)
    }

    @Test("quoted and plain scalars: colons in URLs, # inside quotes, escapes, inline lists")
    func scalars() throws {
        let value = try YAMLSubset.parse("""
            url: tcp://bus:7401
            hash: "a # not a comment"
            single: 'it''s'
            escaped: "say \\"hi\\"\\n"
            "quoted key": yes
            list: ["CMD", "cafectl", 'x, y', plain, "tcp://127.0.0.1:7403"]
            none: []
            flag: "no"
            """)
        #expect(value["url"]?.string == "tcp://bus:7401")
        #expect(value["hash"]?.string == "a # not a comment")
        #expect(value["single"]?.string == "it's")
        #expect(value["escaped"]?.string == "say \"hi\"\n")
        #expect(value["quoted key"]?.string == "yes")
        #expect(value["list"]?.strings == ["CMD", "cafectl", "x, y", "plain", "tcp://127.0.0.1:7403"])
        #expect(value["none"] == .sequence([]))
        #expect(value["flag"]?.string == "no")
    }

    @Test("YAML outside the subset is refused with its line number", arguments: [
        ("a:\n  b: {c: 1}", 2),
        ("a: &anchor\n  b: 1", 1),
        ("a: *anchor", 1),
        ("a: |\n  text", 1),
        ("a:\n\tb: 1", 2),
        ("a: 1\na: 2", 2),
        ("a:\n  b: 1\n c: 2", 3),
        ("a: [1, [2]]", 1),
        ("a: \"open", 1),
        ("---\na: 1", 1),
        ("a:\n  - 1\n  b: 2", 3),
    ])
    func refused(text: String, line: Int) {
        do {
            let value = try YAMLSubset.parse(text)
            Issue.record("parsed \(value) from \(text.debugDescription)")
        } catch let error as YAMLError {
            #expect(error.line == line, "\(error)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
