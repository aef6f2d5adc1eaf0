import Crypto
import Foundation
import StratusAdmin
import StratusStoreTesting
import Testing

/// Three `stratus serve` nodes on one PostgreSQL database and one SeaweedFS bucket, behind nginx configured
/// with `deploy/nginx/stratus.conf`: every request may land on another node.
@Suite(.serialized) struct ClusterEndToEndTests {
    static let container = NotificationEndToEndTests.container

    /// Runs `body` with a fresh cluster of three nodes, stopped afterwards.
    static func withCluster(_ name: String, _ body: (Cluster) async throws -> Void) async throws {
        guard let cluster = try await Cluster.start(nodes: 3, name: name) else { return }
        do {
            try await body(cluster)
        } catch {
            let report = cluster.nodeReport
            await cluster.stop()
            throw E2EFailure("\(error)\n\(report)")
        }
        await cluster.stop()
    }

    @Test("through nginx, sessions, keys, a deploy and asset URLs made on one node hold on every node, at once")
    func oneAppOnEveryNode() async throws {
        try await Self.withCluster("cluster-app") { cluster in
            let front = cluster.front
            // Requests go to the nodes in turn.
            var answering: Set<String> = []
            for _ in 0..<6 {
                let (status, ready) = try await front.send("GET", "/readyz")
                #expect(status == 200)
                answering.insert(ready["node"] as? String ?? "")
            }
            #expect(answering == ["node-1", "node-2", "node-3"])

            let apiToken = try await front.createContainer(Self.container)
            let caller = "/database/1/\(Self.container)/development/public/users/caller"

            // A session begun on one node works on each; signed out on one, every node refuses it at once.
            let alice = try await NotificationEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: front)
            for _ in 0..<3 { #expect(try await front.send("GET", "\(caller)?\(alice.query)").0 == 200) }
            #expect(try await front.send("POST", "/auth/1/\(Self.container)/development/signout?\(alice.query)").0 == 200)
            for node in cluster.nodes { #expect(try await node.send("GET", "\(caller)?\(alice.query)").0 == 401) }

            // A server-to-server key works on every node; revoked through one, every node refuses it at once.
            let privateKey = P256.Signing.PrivateKey()
            let keyID = try await front.admin.createKey(publicKeyPEM: privateKey.publicKey.pemRepresentation, container: Self.container)
            let signedPath = "/database/1/\(Self.container)/development/public/records/query"
            let query = #"{"query":{"recordType":"Users"}}"#
            for node in cluster.nodes { #expect(try await node.sendSigned(signedPath, body: query, keyID: keyID, privateKey: privateKey) == 200) }
            try await front.admin.revokeKey(keyID, container: Self.container)
            for node in cluster.nodes { #expect(try await node.sendSigned(signedPath, body: query, keyID: keyID, privateKey: privateKey) == 401) }

            // A schema deployed to production through one node is production's schema on every node.
            try await front.admin.importSchema(
                #"DEFINE SCHEMA RECORD TYPE Flag ("___recordID" REFERENCE QUERYABLE, name STRING QUERYABLE, GRANT READ TO "_world", GRANT CREATE, WRITE TO "_icloud");"#,
                container: Self.container
            )
            let flags = "/database/1/\(Self.container)/production/public/records/query?ckAPIToken=\(apiToken)"
            let flagQuery = #"{"query":{"recordType":"Flag"}}"#
            #expect(try await cluster.nodes[0].send("POST", flags, body: flagQuery).0 != 200)
            let deployed = try await front.admin.send("POST", "/admin/1/\(Self.container)/deploy", body: nil)
            #expect(deployed.status == 200)
            for node in cluster.nodes {
                let (status, answer) = try await node.send("POST", flags, body: flagQuery)
                #expect(status == 200, "\(answer)")
            }

            // An upload URL made by one node takes the file on another; the download URL works on all of them.
            let bob = try await NotificationEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: front)
            let tokens = try await bob.post("assets/upload", #"{"tokens":[{"recordType":"Message","fieldName":"image"}]}"#)
            let uploadURL = try #require((tokens["tokens"] as? [[String: Any]])?.first?["url"] as? String)
            #expect(uploadURL.hasPrefix(cluster.proxy.baseURL), "URLs name the public URL, not a node")
            let file = GeneratedFile(size: 3 * 1024 * 1024)
            let http = StreamingHTTP(port: cluster.proxy.port)
            let uploaded = try AssetEndToEndTests.singleFile(
                of: try http.send("POST", try #require(URLComponents(string: uploadURL)).percentEncodedPath, length: file.size, chunks: file)
            )
            let fileJSON = String(decoding: try JSONSerialization.data(withJSONObject: uploaded), as: UTF8.self)
            let saved = try await bob.post(
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"picture","recordType":"Message","fields":{"image":{"value":\#(fileJSON)}}}}]}"#
            )
            let fields = (saved["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any]
            let downloadURL = try #require(((fields?["image"] as? [String: Any])?["value"] as? [String: Any])?["downloadURL"] as? String)
            let downloadPath = try #require(URLComponents(string: downloadURL)).percentEncodedPath
            for node in cluster.nodes {
                let download = try StreamingHTTP(port: node.port).get(downloadPath)
                #expect(download.status == 200 && download.bodyChecksum == file.checksum)
            }
        }
    }

    @Test("a save on one node wakes a stream and a long poll held by others; a stream resumed on another node loses and repeats nothing")
    func notificationsAcrossNodes() async throws {
        try await Self.withCluster("cluster-chat") { cluster in
            let front = cluster.front
            let apiToken = try await front.createContainer(Self.container)
            let alice = try await NotificationEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: front)
            let bob = try await NotificationEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: front)
            try await bob.say("welcome", in: "random", name: "seed")
            let courier = try await alice.subscribeToChannel("general")
            let streamPath = "/notifications/1/\(Self.container)/development/stream?\(alice.query)"

            // Alice's stream is held by node 1; Bob saves on node 2, then on node 3.
            let stream = try EventStreamClient(port: cluster.nodes[0].port, path: streamPath)
            try await cluster.nodes[0].waitForNotificationListeners()
            try await bob.on(cluster.nodes[1]).say("hello", in: "general", name: "m1")
            let first = try #require(stream.nextIdentifiedEvent(timeout: 3))
            #expect(NotificationEndToEndTests.text(ofEvent: first.data) == "hello")
            try await bob.on(cluster.nodes[2]).say("again", in: "general", name: "m2")
            #expect(NotificationEndToEndTests.text(ofEvent: stream.nextEvent(timeout: 3)) == "again")
            // The courier's long poll, on whichever node nginx picks, has both in order.
            #expect(try await alice.on(cluster.nodes[2]).poll(courier) == "hello")
            #expect(try await alice.poll(courier) == "again")

            // A long poll held by node 3 is woken by a save on node 1 (polling again, as a client does, should a loaded
            // machine take longer than the courier's wait).
            async let woken = alice.on(cluster.nodes[2]).poll(courier)
            try await cluster.nodes[2].waitForNotificationListeners()
            try await bob.on(cluster.nodes[0]).say("wake up", in: "general", name: "m3")
            var delivered = try await woken
            for _ in 0..<3 where delivered == nil { delivered = try await alice.on(cluster.nodes[2]).poll(courier) }
            #expect(delivered == "wake up")

            // The stream drops after the first event; what came since arrives on node 3 from Last-Event-ID, once.
            try await bob.on(cluster.nodes[1]).say("while away", in: "general", name: "m4")
            let resumed = try EventStreamClient(port: cluster.nodes[2].port, path: streamPath, headers: ["Last-Event-ID": first.id])
            var texts: [String?] = []
            while let event = resumed.nextEvent(timeout: 2) { texts.append(NotificationEndToEndTests.text(ofEvent: event)) }
            #expect(texts == ["again", "wake up", "while away"])
        }
    }

    @Test("the sharing walkthrough with every step on another node, and a sign-in throttle that counts every node's attempts")
    func sharingAndThrottleAcrossNodes() async throws {
        try await Self.withCluster("cluster-sharing") { cluster in
            let container = SharingEndToEndTests.container
            let nodes = cluster.nodes
            let apiToken = try await cluster.front.createContainer(container)
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: nodes[0])
            let bob = try await SharingEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: nodes[1])
            let carol = try await SharingEndToEndTests.signUp("carol@example.com", apiToken: apiToken, on: nodes[2])

            // A shares on node 1; B resolves the link on node 2, accepts on node 3, and reads on every node.
            _ = try await alice.send("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Contact"}}}]}"#)
            let (status, saved) = try await alice.send("private", "records/modify", #"""
                {"zoneID":{"zoneName":"Contact"},"operations":[
                  {"operationType":"create","record":{"recordName":"info","recordType":"PrivateInfo","fields":{"email":{"value":"alice@example.com"}}}},
                  {"operationType":"create","record":{"recordName":"info-share","recordType":"cloudkit.share","forRecord":{"recordName":"info"},"publicPermission":"NONE",
                    "participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(bob.userRecordName)"}},"permission":"READ_ONLY"}]}}]}
                """#)
            #expect(status == 200)
            let shareURL = try #require((saved["records"] as? [[String: Any]])?.last?["url"] as? String)
            #expect(shareURL.hasPrefix(cluster.proxy.baseURL), "share URLs name the public URL")
            let guid = try #require(shareURL.split(separator: "/").last.map(String.init))
            #expect(try await cluster.front.send("GET", "/share/\(guid)").0 == 200)
            #expect(try await bob.on(nodes[1]).link("resolve", guid)["participantStatus"] as? String == "INVITED")
            #expect(try await bob.on(nodes[2]).link("accept", guid)["participantStatus"] as? String == "ACCEPTED")
            let lookup = #"{"zoneID":{"zoneName":"Contact","ownerRecordName":"\#(alice.userRecordName)"},"records":[{"recordName":"info"}]}"#
            for node in nodes {
                let info = try await bob.on(node).record("shared", "records/lookup", lookup)
                #expect(SharingEndToEndTests.value("email", of: info) as? String == "alice@example.com")
            }
            #expect(try await carol.link("resolve", guid)["serverErrorCode"] as? String == "ACCESS_DENIED")

            // A removes B on node 2: every node refuses B at once.
            let current = try await alice.on(nodes[1]).record("private", "records/lookup", #"{"zoneID":{"zoneName":"Contact"},"records":[{"recordName":"info-share"}]}"#)
            let tag = try #require(current["recordChangeTag"] as? String)
            _ = try await alice.on(nodes[1]).record("private", "records/modify", #"""
                {"zoneID":{"zoneName":"Contact"},"operations":[{"operationType":"update","record":{"recordName":"info-share","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[]}}]}
                """#)
            for node in nodes {
                #expect(try await bob.on(node).send("shared", "records/lookup", lookup).1["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
            }

            // Five wrong passwords through nginx reach the three nodes in turn; the sixth is throttled all the same.
            let signIn = "/auth/1/\(container)/development/signin?ckAPIToken=\(apiToken)"
            let wrong = #"{"emailAddress":"alice@example.com","password":"not the password"}"#
            var failures: [Int] = []
            for _ in 0..<5 { failures.append(try await cluster.front.send("POST", signIn, body: wrong).0) }
            #expect(failures.allSatisfy { $0 == 401 }, "\(failures)")
            let (throttled, refusal) = try await cluster.front.send("POST", signIn, body: wrong)
            #expect(throttled == 429, "\(refusal)")
            #expect(refusal["serverErrorCode"] as? String == "THROTTLED")
        }
    }
}
