import Foundation
import HTTPTypes
import StratusModel
import StratusStoreTesting
import Testing

@Suite struct AssetsAPITests {
    @Test("an uploaded image is attached to a record, read back with a download URL, and downloaded whole and by range")
    func uploadAttachDownload() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let image = AssetTestSupport.png(5_000)
            let path = try await alice.uploadPath(recordType: "Message", field: "image", recordName: "m1")
            #expect(path.hasPrefix("/assets/1/upload/"))
            let (uploaded, _) = try await client.sendBytes(.post, path, image)
            #expect(uploaded.status == 200)
            let file = try #require(uploaded["singleFile"]?.objectValue)
            #expect(file["size"] == .integer(Int64(image.count)))
            #expect(file["fileChecksum"] == .string(AssetTestSupport.checksum(image)))
            #expect(file["receipt"] != nil)

            var writer = JSONWriter()
            JSONValue.object(file).write(to: &writer)
            let saved = try await alice.create("m1", type: "Message", fields: #"{"title":{"value":"Hi"},"image":{"value":\#(writer.text)}}"#)
            let field = try #require(saved["fields"]?.objectValue?["image"]?.objectValue)
            #expect(field["type"] == .string("ASSETID"))
            let value = try #require(field["value"]?.objectValue)
            #expect(value["fileChecksum"] == file["fileChecksum"])
            #expect(value["size"] == file["size"])
            #expect(value["receipt"] == nil && value["assetID"] == nil)
            #expect(value["downloadURL"] != nil)

            // Anyone may read a public record, so anyone gets a working URL.
            let download = try await alice.anonymous.downloadPath(of: "m1", field: "image")
            let (whole, bytes) = try await client.sendBytes(.get, download)
            #expect(whole.status == 200)
            #expect(bytes == image)
            #expect(whole.headers[.contentType] == "image/png")
            #expect(whole.headers[.contentLength] == "\(image.count)")
            #expect(whole.headers[.acceptRanges] == "bytes")

            let (part, partBytes) = try await client.sendBytes(.get, download, headers: [.range: "bytes=100-199"])
            #expect(part.status == 206)
            #expect(partBytes == Array(image[100...199]))
            #expect(part.headers[.contentRange] == "bytes 100-199/\(image.count)")
            let (tail, tailBytes) = try await client.sendBytes(.get, download, headers: [.range: "bytes=-10"])
            #expect(tail.status == 206)
            #expect(tailBytes == Array(image.suffix(10)))
            let (outside, _) = try await client.sendBytes(.get, download, headers: [.range: "bytes=\(image.count)-"])
            #expect(outside.status == 416)
            #expect(outside.headers[.contentRange] == "bytes */\(image.count)")
            let (named, _) = try await client.sendBytes(.get, download + "/picture.png")
            #expect(named.status == 200)
            #expect(named.headers[.contentDisposition] == #"inline; filename="picture.png""#)

            // Query results and change feeds carry URLs too.
            let query = try await alice.post("public", "records/query", #"{"query":{"recordType":"Message"}}"#)
            #expect(query.records.first?["fields"]?.objectValue?["image"]?.objectValue?["value"]?.objectValue?["downloadURL"] != nil)
        }
    }

    @Test("forged, misused and expired URLs get 403")
    func forgedAndExpiredURLs() async throws {
        // Lifetimes long enough for the steps below on a loaded machine; the test then waits them out, counted
        // from when each URL was issued.
        let lifetime = 15
        try await TestServer.run(configure: { $0.assetUploadLifetime = lifetime; $0.assetDownloadLifetime = lifetime }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let path = try await alice.uploadPath(recordType: "Message", field: "image")
            let (forged, _) = try await client.sendBytes(.post, AssetTestSupport.tamper(path), [1, 2, 3])
            #expect(forged.status == 403)
            #expect(forged.errorCode == "ACCESS_DENIED")
            let token2 = path.replacingOccurrences(of: "/assets/1/upload/", with: "/assets/1/download/")
            let (misused, _) = try await client.sendBytes(.get, token2)
            #expect(misused.status == 403)
            let (garbage, _) = try await client.sendBytes(.get, "/assets/1/download/not-a-token")
            #expect(garbage.status == 403)

            let file = try await alice.upload(AssetTestSupport.png(), recordType: "Message", field: "image")
            let created = try await alice.create("m1", type: "Message", fields: #"{"image":{"value":\#(file)}}"#)
            try #require(created["serverErrorCode"] == nil, "\(created)")
            let download = try await alice.downloadPath(of: "m1", field: "image")
            let downloadIssued = ContinuousClock.now  // at or after the server issued it
            let (fresh, _) = try await client.sendBytes(.get, download)
            #expect(fresh.status == 200)
            let (forgedDownload, _) = try await client.sendBytes(.get, AssetTestSupport.tamper(download))
            #expect(forgedDownload.status == 403)

            // The upload URL was issued before the download URL, so both have expired by then.
            try await Task.sleep(until: downloadIssued + .seconds(lifetime) + .milliseconds(100))
            let (expiredUpload, _) = try await client.sendBytes(.post, path, [1, 2, 3])
            #expect(expiredUpload.status == 403)
            #expect(expiredUpload.errorCode == "ACCESS_DENIED")
            let (expiredDownload, _) = try await client.sendBytes(.get, download)
            #expect(expiredDownload.status == 403)
        }
    }

    @Test("a file over the size limit is refused with QUOTA_EXCEEDED before anything is stored")
    func sizeLimit() async throws {
        try await TestServer.run(configure: { $0.maximumAssetBytes = 1_000 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let path = try await alice.uploadPath(recordType: "Message", field: "image")
            let (refused, _) = try await client.sendBytes(.post, path, [UInt8](repeating: 7, count: 1_001))
            #expect(refused.status == 413)
            #expect(refused.errorCode == "QUOTA_EXCEEDED")
            let files = client.parts.blobFiles()
            #expect(files.blobs.isEmpty && files.uploads.isEmpty)
            let (accepted, _) = try await client.sendBytes(.post, path, [UInt8](repeating: 7, count: 1_000))
            #expect(accepted.status == 200)
            #expect(client.parts.blobFiles().blobs.count == 1)
        }
    }

    @Test("records refuse receipts that are unknown, reused, for another field or database, or with another checksum")
    func receiptRefusals() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            let image = AssetTestSupport.png()
            let file = try await alice.upload(image, recordType: "Message", field: "image")
            try await alice.create("m1", type: "Message", fields: #"{"image":{"value":\#(file)}}"#)

            func refusal(_ record: [String: JSONValue]) -> String {
                guard record["serverErrorCode"] == .string("BAD_REQUEST"), case .string(let reason)? = record["reason"] else {
                    return "not refused: \(record)"
                }
                return reason
            }
            let reused = try await alice.create("m2", type: "Message", fields: #"{"image":{"value":\#(file)}}"#)
            #expect(refusal(reused).contains("used by another field"))

            let other = try await alice.upload(image, recordType: "Message", field: "image")
            let wrongField = try await alice.create("m3", type: "Message", fields: #"{"thumbnail":{"value":\#(other)}}"#)
            #expect(refusal(wrongField).contains("issued for field image"))

            let receipt = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(other.utf8)).objectValue?["receipt"])
            guard case .string(let receiptText) = receipt else { return }
            let wrongChecksum = try await alice.create("m4", type: "Message", fields: #"{"image":{"value":{"receipt":"\#(receiptText)","fileChecksum":"AAAA","size":\#(image.count)}}}"#)
            #expect(refusal(wrongChecksum).contains("fileChecksum does not match"))
            let noChecksum = try await alice.create("m5", type: "Message", fields: #"{"image":{"value":{"receipt":"\#(receiptText)"}}}"#)
            #expect(refusal(noChecksum).contains("needs the fileChecksum"))
            let unknown = try await alice.create("m6", type: "Message", fields: #"{"image":{"value":{"receipt":"made-up","fileChecksum":"AAAA"}}}"#)
            #expect(refusal(unknown).contains("not valid or has expired"))
            let noReceipt = try await alice.create("m7", type: "Message", fields: #"{"image":{"value":{"fileChecksum":"\#(AssetTestSupport.checksum(image))"}}}"#)
            #expect(refusal(noReceipt).contains("needs the receipt"))

            // A receipt from Alice's private database cannot be used in Bob's.
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            _ = try await bob.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            let privateFile = try await alice.upload(image, "private", recordType: "Note", field: "scan", zone: "Notes")
            let stolen = try await bob.create("n1", type: "Note", fields: #"{"scan":{"value":\#(privateFile)}}"#, "private", zone: "Notes")
            #expect(refusal(stolen).contains("another database"))
            let own = try await alice.create("n1", type: "Note", fields: #"{"scan":{"value":\#(privateFile)}}"#, "private", zone: "Notes")
            #expect(own["serverErrorCode"] == nil)
        }
    }

    @Test("assets/upload refuses fields that are not assets, unknown types in production, and anonymous callers")
    func uploadRequestRefusals() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            try await alice.create("m1", type: "Message", fields: #"{"title":{"value":"Hi"}}"#)
            let notAsset = try await alice.post("public", "assets/upload", #"{"tokens":[{"recordType":"Message","fieldName":"title"}]}"#)
            #expect(notAsset.status == 400)
            #expect(notAsset.errorCode == "BAD_REQUEST")
            let anonymous = try await alice.anonymous.post("public", "assets/upload", #"{"tokens":[{"recordType":"Message","fieldName":"image"}]}"#)
            #expect(anonymous.errorCode == "AUTHENTICATION_REQUIRED")
            let production = try await alice.inEnvironment("production").post("public", "assets/upload", #"{"tokens":[{"recordType":"Nothing","fieldName":"image"}]}"#)
            #expect(production.status == 404 && production.errorCode == "NOT_FOUND")
            let many = try await alice.post("public", "assets/upload", #"{"tokens":[\#(Array(repeating: #"{"recordType":"Message","fieldName":"image"}"#, count: 201).joined(separator: ","))]}"#)
            #expect(many.errorCode == "BAD_REQUEST")
            let answered = try await alice.post("public", "assets/upload", #"{"tokens":[{"recordType":"Message","fieldName":"image"},{"recordType":"Message","fieldName":"thumbnail","recordName":"m1"}]}"#)
            guard case .array(let tokens)? = answered["tokens"] else { Issue.record("no tokens: \(answered.json)"); return }
            #expect(tokens.count == 2)
            #expect(tokens[1].objectValue?["recordName"] == .string("m1"))
            #expect(tokens[0].objectValue?["recordName"] != nil)
        }
    }

    @Test("a private record's asset is downloadable through its owner's URL; another user gets none")
    func privateAssets() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Docs"}}}]}"#)
            let scan = AssetTestSupport.png(2_000, seed: 9)
            let file = try await alice.upload(scan, "private", recordType: "Doc", field: "scan", zone: "Docs")
            try await alice.create("d1", type: "Doc", fields: #"{"scan":{"value":\#(file)}}"#, "private", zone: "Docs")
            let download = try await alice.downloadPath(of: "d1", field: "scan", "private", zone: "Docs")
            let (reply, bytes) = try await client.sendBytes(.get, download)
            #expect(reply.status == 200 && bytes == scan)

            let bobLooks = try await bob.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Docs"},"records":[{"recordName":"d1"}]}"#)
            #expect(bobLooks.records.first?["downloadURL"] == nil)
            #expect(bobLooks.errorCode == "ZONE_NOT_FOUND" || bobLooks.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
            // Bob's rereference of Alice's record finds nothing either.
            let bobCopies = try await bob.post("private", "assets/rereference", #"{"assets":[{"recordName":"d1","fieldName":"scan"}]}"#)
            guard case .array(let items)? = bobCopies["assets"] else { Issue.record("\(bobCopies.json)"); return }
            #expect(items.first?.objectValue?["serverErrorCode"] == .string("NOT_FOUND"))
        }
    }

    @Test("asset lists hold several files, each with its own URL")
    func assetLists() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let first = AssetTestSupport.png(100, seed: 1)
            let second = AssetTestSupport.png(200, seed: 2)
            let a = try await alice.upload(first, recordType: "Album", field: "photos")
            let b = try await alice.upload(second, recordType: "Album", field: "photos")
            let saved = try await alice.create("a1", type: "Album", fields: #"{"photos":{"value":[\#(a),\#(b)],"type":"ASSETID_LIST"}}"#)
            let field = try #require(saved["fields"]?.objectValue?["photos"]?.objectValue)
            #expect(field["type"] == .string("ASSETID_LIST"))
            guard case .array(let values)? = field["value"] else { Issue.record("no list: \(saved)"); return }
            #expect(values.count == 2)
            for (value, expected) in zip(values, [first, second]) {
                guard case .string(let url)? = value.objectValue?["downloadURL"] else { Issue.record("no URL"); continue }
                let (reply, bytes) = try await client.sendBytes(.get, AssetTestSupport.path(of: url))
                #expect(reply.status == 200 && bytes == expected)
            }
        }
    }

    @Test("a record saved back as it was read keeps its asset; a replaced asset is collected")
    func keepAndReplace() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let old = AssetTestSupport.png(100, seed: 3)
            let file = try await alice.upload(old, recordType: "Message", field: "image")
            try await alice.create("m1", type: "Message", fields: #"{"image":{"value":\#(file)}}"#)
            let read = try await alice.post("public", "records/lookup", #"{"records":[{"recordName":"m1"}]}"#)
            let record = try #require(read.records.first)
            var writer = JSONWriter()
            JSONValue.object(record["fields"]!.objectValue!).write(to: &writer)
            let savedBack = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"m1","recordType":"Message","fields":\#(writer.text)}}]}"#)
            #expect(savedBack.records.first?["serverErrorCode"] == nil)
            try await client.parts.collector.sweep(now: Date().addingTimeInterval(7_200))
            let (stillThere, bytes) = try await client.sendBytes(.get, try await alice.downloadPath(of: "m1", field: "image"))
            #expect(stillThere.status == 200 && bytes == old)

            let oldURL = try await alice.downloadPath(of: "m1", field: "image")
            let new = AssetTestSupport.png(100, seed: 4)
            let newFile = try await alice.upload(new, recordType: "Message", field: "image")
            let replaced = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"m1","fields":{"image":{"value":\#(newFile)}}}}]}"#)
            #expect(replaced.records.first?["serverErrorCode"] == nil)
            #expect(try await client.sendBytes(.get, oldURL).0.status == 404)
            #expect(client.parts.blobFiles().blobs.count == 2)
            try await client.parts.collector.sweep(now: Date().addingTimeInterval(7_200))
            #expect(client.parts.blobFiles().blobs.count == 1)
            let (current, currentBytes) = try await client.sendBytes(.get, try await alice.downloadPath(of: "m1", field: "image"))
            #expect(current.status == 200 && currentBytes == new)
        }
    }

    @Test("uploads never attached are collected after their receipts expire; held ones are not")
    func unattachedUploadsAreCollected() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.upload(AssetTestSupport.png(50, seed: 1), recordType: "Message", field: "image")
            let kept = try await alice.upload(AssetTestSupport.png(50, seed: 2), recordType: "Message", field: "image")
            try await alice.create("m1", type: "Message", fields: #"{"image":{"value":\#(kept)}}"#)
            #expect(client.parts.blobFiles().blobs.count == 2)
            #expect(try await client.parts.collector.sweep() == 0)
            #expect(client.parts.blobFiles().blobs.count == 2)
            #expect(try await client.parts.collector.sweep(now: Date().addingTimeInterval(16 * 60)) == 1)
            #expect(client.parts.blobFiles().blobs.count == 1)
            #expect(try await client.sendBytes(.get, try await alice.downloadPath(of: "m1", field: "image")).0.status == 200)
        }
    }

    @Test("assets/rereference lets another record reuse a file, which lives while any record holds it")
    func rereference() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let image = AssetTestSupport.png(400, seed: 5)
            let file = try await alice.upload(image, recordType: "Message", field: "image")
            let first = try await alice.create("m1", type: "Message", fields: #"{"image":{"value":\#(file)}}"#)
            let tag = try #require(first["recordChangeTag"])

            let reply = try await alice.post("public", "assets/rereference", #"{"assets":[{"recordName":"m1","fieldName":"image"},{"recordName":"m1","fieldName":"title"},{"recordName":"nope","fieldName":"image"}]}"#)
            guard case .array(let items)? = reply["assets"] else { Issue.record("\(reply.json)"); return }
            #expect(items.count == 3)
            #expect(items[1].objectValue?["serverErrorCode"] == .string("BAD_REQUEST"))
            #expect(items[2].objectValue?["serverErrorCode"] == .string("NOT_FOUND"))
            let copy = try #require(items[0].objectValue)
            #expect(copy["type"] == .string("ASSETID"))
            var writer = JSONWriter()
            copy["value"]!.write(to: &writer)

            // The first record goes away between the rereference and the save: the receipt keeps the file.
            guard case .string(let tagText) = tag else { return }
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"delete","record":{"recordName":"m1","recordChangeTag":"\#(tagText)"}}]}"#)
            try await client.parts.collector.sweep()
            let second = try await alice.create("archive", type: "Archive", fields: #"{"cover":{"value":\#(writer.text)}}"#)
            #expect(second["serverErrorCode"] == nil)
            try await client.parts.collector.sweep(now: Date().addingTimeInterval(7_200))
            let (reply2, bytes) = try await client.sendBytes(.get, try await alice.downloadPath(of: "archive", field: "cover"))
            #expect(reply2.status == 200 && bytes == image)

            // Once the last holder is deleted, the file goes.
            let archive = try await alice.post("public", "records/lookup", #"{"records":[{"recordName":"archive"}]}"#)
            guard case .string(let archiveTag)? = archive.records.first?["recordChangeTag"] else { return }
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"delete","record":{"recordName":"archive","recordChangeTag":"\#(archiveTag)"}}]}"#)
            #expect(try await client.parts.collector.sweep(now: Date().addingTimeInterval(7_200)) == 1)
            #expect(client.parts.blobFiles().blobs.isEmpty)
        }
    }

    @Test("deleting a zone releases the files its records held")
    func zoneDeletionReleasesAssets() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Trip"}}}]}"#)
            let file = try await alice.upload(AssetTestSupport.png(), "private", recordType: "Photo", field: "image", zone: "Trip")
            try await alice.create("p1", type: "Photo", fields: #"{"image":{"value":\#(file)}}"#, "private", zone: "Trip")
            #expect(try await client.parts.collector.sweep(now: Date().addingTimeInterval(7_200)) == 0)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Trip"}}}]}"#)
            #expect(try await client.parts.collector.sweep(now: Date().addingTimeInterval(7_200)) == 1)
            #expect(client.parts.blobFiles().blobs.isEmpty)
        }
    }

    @Test("mangled upload and download URLs get 403, never a 500")
    func mangledTokens() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let path = try await alice.uploadPath(recordType: "Message", field: "image")
            let signed = String(path.dropFirst("/assets/1/upload/".count))
            var rng = SeededGenerator(seed: 7)
            let alphabet = Array("ABCxyz019-_.%~")
            for _ in 0..<200 {
                var characters = Array(signed)
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let index = Int.random(in: 0..<characters.count, using: &rng)
                    // A replacement by the same character would leave a valid token.
                    characters[index] = alphabet.filter { $0 != characters[index] }.randomElement(using: &rng)!
                }
                guard String(characters) != signed else { continue }
                let mangled = String(characters).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? "x"
                let kind = Bool.random(using: &rng) ? "upload" : "download"
                let (reply, _) = try await client.sendBytes(kind == "upload" ? .post : .get, "/assets/1/\(kind)/\(mangled)", [1, 2, 3])
                #expect([403, 404].contains(reply.status), "\(kind) \(mangled) answered \(reply.status)")
            }
        }
    }
}
