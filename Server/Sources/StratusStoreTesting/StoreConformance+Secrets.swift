import StratusModel
import StratusStore
import Testing

/// Containers' secrets, pending revocations and resealing.
extension StoreConformance {
    static var secretCases: [ConformanceCase] {
        [
            ConformanceCase("container secrets are kept per container and name, replaced, listed and removed") { store in
                try await store.setContainerSecret(ContainerSecret(containerID: Fixture.container, name: "apple.privateKey", sealedValue: "s1", updatedAt: 1))
                try await store.setContainerSecret(ContainerSecret(containerID: Fixture.container, name: "openid.corp.clientSecret", sealedValue: "s2", updatedAt: 2))
                try await store.setContainerSecret(ContainerSecret(containerID: "iCloud.other", name: "apple.privateKey", sealedValue: "s3", updatedAt: 3))
                try await store.setContainerSecret(ContainerSecret(containerID: Fixture.container, name: "apple.privateKey", sealedValue: "s4", updatedAt: 4))
                let apple = try await store.containerSecret(containerID: Fixture.container, name: "apple.privateKey")
                #expect(apple?.sealedValue == "s4" && apple?.updatedAt == 4)
                #expect(try await store.containerSecrets(containerID: Fixture.container).map(\.name) == ["apple.privateKey", "openid.corp.clientSecret"])
                try await store.removeContainerSecret(containerID: Fixture.container, name: "apple.privateKey")
                #expect(try await store.containerSecret(containerID: Fixture.container, name: "apple.privateKey") == nil)
                #expect(try await store.containerSecret(containerID: "iCloud.other", name: "apple.privateKey")?.sealedValue == "s3")
                await #expect {
                    try await store.removeContainerSecret(containerID: Fixture.container, name: "apple.privateKey")
                } throws: { error in (error as? StorageError)?.code == .notFound }
            },
            ConformanceCase("deleting an account, or unlinking an identity, queues its refresh tokens' revocation, retried until finished") { store in
                for user in [Fixture.alice, Fixture.bob] {
                    try await store.createAccount(Account(
                        containerID: Fixture.container, userRecordName: user, emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil,
                        isAnonymous: true, createdAt: Fixture.now
                    ))
                }
                try await store.addIdentity(AccountIdentity(
                    containerID: Fixture.container, provider: "apple", subject: "a", userRecordName: Fixture.alice, emailAddress: nil,
                    isEmailVerified: false, sealedRefreshToken: "sealed-a", createdAt: Fixture.now
                ))
                try await store.addIdentity(AccountIdentity(
                    containerID: Fixture.container, provider: "corp", subject: "a2", userRecordName: Fixture.alice, emailAddress: nil,
                    isEmailVerified: false, createdAt: Fixture.now
                ))
                try await store.addIdentity(AccountIdentity(
                    containerID: Fixture.container, provider: "apple", subject: "b", userRecordName: Fixture.bob, emailAddress: nil,
                    isEmailVerified: false, sealedRefreshToken: "sealed-b", createdAt: Fixture.now
                ))
                #expect(try await store.pendingRevocations(containerID: Fixture.container).isEmpty)
                _ = try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                try await store.finishAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                try await store.removeIdentity(containerID: Fixture.container, userRecordName: Fixture.bob, provider: "apple", subject: "b")
                let pending = try await store.pendingRevocations(containerID: Fixture.container)
                #expect(pending.map(\.subject) == ["a", "b"] && pending.map(\.sealedToken) == ["sealed-a", "sealed-b"], "saw \(pending)")
                let dueNow = Int64.max / 2
                #expect(try await store.dueRevocations(now: dueNow, limit: 10).count == 2)
                try await store.postponeRevocation(containerID: Fixture.container, provider: "apple", subject: "a", until: dueNow + 1, error: "503 from Apple")
                let due = try await store.dueRevocations(now: dueNow, limit: 10)
                #expect(due.map(\.subject) == ["b"], "saw \(due)")
                let postponed = try await store.pendingRevocations(containerID: Fixture.container).first { $0.subject == "a" }
                #expect(postponed?.attempts == 1 && postponed?.lastError == "503 from Apple" && postponed?.nextAttemptAt == dueNow + 1)
                try await store.finishRevocation(containerID: Fixture.container, provider: "apple", subject: "b")
                #expect(try await store.pendingRevocations(containerID: Fixture.container).map(\.subject) == ["a"])
            },
            ConformanceCase("every sealed value is listed, and replaced only while it is still what was read") { store in
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil,
                    isAnonymous: true, createdAt: Fixture.now
                ))
                try await store.addIdentity(AccountIdentity(
                    containerID: Fixture.container, provider: "apple", subject: "a", userRecordName: Fixture.alice, emailAddress: nil,
                    isEmailVerified: false, sealedRefreshToken: "old-token", createdAt: Fixture.now
                ))
                try await store.setContainerSecret(ContainerSecret(containerID: Fixture.container, name: "apple.privateKey", sealedValue: "old-key", updatedAt: 1))
                let values = try await store.sealedValues()
                #expect(Set(values.map(\.value)) == ["old-token", "old-key"], "saw \(values)")
                for value in values {
                    #expect(try await store.replaceSealedValue(value, with: "new-" + value.value))
                    #expect(try await store.replaceSealedValue(value, with: "again") == false)
                }
                #expect(try await store.containerSecret(containerID: Fixture.container, name: "apple.privateKey")?.sealedValue == "new-old-key")
                #expect(try await store.identities(containerID: Fixture.container, userRecordName: Fixture.alice).first?.sealedRefreshToken == "new-old-token")
            },
        ]
    }
}

/// Claims of imported CloudKit users.
extension StoreConformance {
    static var cloudKitClaimCases: [ConformanceCase] {
        [
            ConformanceCase("claiming a CloudKit user gives the account its public records and its Users record's fields, once") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                let stamp = RecordStamp(timestamp: Fixture.now - 1000, userRecordName: "_ck1", deviceID: "")
                let other = RecordStamp(timestamp: Fixture.now - 1000, userRecordName: "_ck2", deviceID: "")
                func imported(_ name: String, type: String, by creator: RecordStamp, fields: [String: FieldInput] = [:]) -> RecordOperation {
                    RecordOperation(
                        type: .forceReplace, recordName: name, recordType: type, fields: fields, imported: ImportedMetadata(created: creator, modified: creator)
                    )
                }
                let results = try await store.modifyRecords(RecordBatch(
                    zone: zone,
                    operations: [
                        imported("_ck1", type: "Users", by: stamp, fields: ["nickname": Fixture.field(.string("Ann"))]),
                        imported("post-1", type: "Post", by: stamp, fields: ["title": Fixture.field(.string("Hello"))]),
                        imported("post-2", type: "Post", by: stamp),
                        imported("post-3", type: "Post", by: other),
                    ],
                    atomic: true, caller: Caller(userRecordName: "_console", deviceID: "import", hasAllPermissions: true), timestamp: Fixture.now
                ))
                #expect(results.allSatisfy { if case .saved = $0 { true } else { false } }, "saw \(results)")
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: "alice@example.com", passwordHash: "h", givenName: nil,
                    familyName: nil, createdAt: Fixture.now
                ))
                let claim = try await store.claimCloudKitUser(
                    "_ck1", for: Fixture.alice, containerID: Fixture.container, environment: .development, now: Fixture.now, changeTag: "claimed"
                )
                #expect(claim.records == 3 && claim.usersRecordFields, "saw \(claim)")
                let records = try await store.lookupRecords(["post-1", "post-2", "post-3", Fixture.alice], in: zone)
                #expect(records["post-1"]?.created.userRecordName == Fixture.alice && records["post-2"]?.modified.userRecordName == Fixture.alice)
                #expect(records["post-3"]?.created.userRecordName == "_ck2")
                #expect(records[Fixture.alice]?.fields.json.contains("nickname") == true && records[Fixture.alice]?.recordChangeTag == "claimed",
                        "saw \(String(describing: records[Fixture.alice]))")
                #expect(try await store.cloudKitClaim(containerID: Fixture.container, userRecordName: Fixture.alice)?.cloudKitUserRecordName == "_ck1")
                // Alice may now change what she created on CloudKit.
                let edit = try await Fixture.modify(store, zone, [RecordOperation(
                    type: .update, recordName: "post-1", recordType: "Post", recordChangeTag: records["post-1"]?.recordChangeTag,
                    fields: ["title": Fixture.field(.string("Edited"))]
                )])
                #expect(Fixture.failure(edit) == nil, "saw \(edit)")

                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.bob, emailAddress: "bob@example.com", passwordHash: "h", givenName: nil,
                    familyName: nil, createdAt: Fixture.now
                ))
                for (cloudKitUser, account) in [("_ck1", Fixture.bob), ("_ck2", Fixture.alice)] {
                    await #expect {
                        try await store.claimCloudKitUser(
                            cloudKitUser, for: account, containerID: Fixture.container, environment: .development, now: Fixture.now, changeTag: "x"
                        )
                    } throws: { error in (error as? StorageError)?.code == .alreadyExists }
                }
                #expect(try await store.lookupRecords(["post-3"], in: zone)["post-3"]?.created.userRecordName == "_ck2")
            },
        ]
    }
}
