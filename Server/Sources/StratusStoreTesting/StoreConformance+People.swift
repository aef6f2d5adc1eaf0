import StratusModel
import StratusStore
import Testing

/// Operator accounts, their roles per container, and the audit log.
extension StoreConformance {
    static var peopleCases: [ConformanceCase] {
        [
            ConformanceCase("operators are kept with their roles; an address is taken once; a code's step moves only forward") { store in
                let ann = OperatorAccount(id: "op_ann", emailAddress: "Ann@Example.com", name: "Ann", passwordHash: "h1", createdAt: Fixture.now)
                try await store.createOperator(ann, roles: [Fixture.container: .developer, "other": .viewer])
                #expect(try await store.operatorAccount(emailAddress: "ann@example.com") == ann && ann.emailAddress == "ann@example.com")
                await #expect {
                    try await store.createOperator(
                        OperatorAccount(id: "op_two", emailAddress: "ann@example.com", name: "", passwordHash: "h", createdAt: Fixture.now), roles: [:]
                    )
                } throws: { error in (error as? StorageError)?.code == .alreadyExists }
                #expect(try await store.operatorRoles(operatorID: "op_ann") == [Fixture.container: .developer, "other": .viewer])
                var changed = ann
                changed.sealedTOTPSecret = "sealed"
                changed.isTOTPEnabled = true
                changed.isDisabled = true
                changed.isAdministrator = true
                try await store.saveOperator(changed)
                #expect(try await store.operatorAccount(id: "op_ann") == changed)
                #expect(try await store.useOperatorTOTPStep(100, operatorID: "op_ann"))
                #expect(try await store.useOperatorTOTPStep(100, operatorID: "op_ann") == false, "a step is used once")
                #expect(try await store.useOperatorTOTPStep(99, operatorID: "op_ann") == false, "never an earlier one")
                try await store.setOperatorRoles([Fixture.container: .owner], operatorID: "op_ann")
                #expect(try await store.operatorRoles(operatorID: "op_ann") == [Fixture.container: .owner])
                #expect(try await store.operatorAccounts().map(\.id) == ["op_ann"])
                try await store.deleteOperator(id: "op_ann")
                #expect(try await store.operatorAccount(id: "op_ann") == nil)
                #expect(try await store.operatorRoles(operatorID: "op_ann").isEmpty)
                await #expect { try await store.deleteOperator(id: "op_ann") } throws: { error in (error as? StorageError)?.code == .notFound }
                await #expect { try await store.saveOperator(ann) } throws: { error in (error as? StorageError)?.code == .notFound }
            },
            ConformanceCase("the admin key's state is kept, replaced and announced to every process") { store in
                #expect(try await store.adminKeyState() == nil)
                let recorder = EventRecorder(store)
                let rotated = AdminKeyState(keyHash: "ab12", sealedKey: "sealed", changedAt: Fixture.now, changedBy: "admin key")
                try await store.setAdminKeyState(rotated)
                #expect(try await store.adminKeyState() == rotated)
                let off = AdminKeyState(keyHash: nil, sealedKey: nil, changedAt: Fixture.now + 1, changedBy: "ann@example.com")
                try await store.setAdminKeyState(off)
                #expect(try await store.adminKeyState() == off && off.isEnabled == false)
                try await store.catchUpEvents()
                #expect(recorder.events == [.adminKeyChanged, .adminKeyChanged])
            },
            ConformanceCase("the audit log lists actions newest first, by container and actor, a page at a time") { store in
                for (index, actor) in ["admin key", "ann@example.com", "bob@example.com", "ann@example.com"].enumerated() {
                    try await store.appendAudit(AuditEntry(
                        id: AuditEntry.newID(time: Fixture.now + Int64(index)), time: Fixture.now + Int64(index), actor: actor,
                        containerID: index == 0 ? nil : Fixture.container, action: "PUT /admin/1/x/\(index)", status: 200, address: "192.0.2.\(index)"
                    ))
                }
                let all = try await store.auditLog(containerID: nil, actor: nil, beforeID: nil, limit: 10)
                #expect(all.map(\.action) == ["PUT /admin/1/x/3", "PUT /admin/1/x/2", "PUT /admin/1/x/1", "PUT /admin/1/x/0"])
                #expect(all.last?.containerID == nil && all.first?.address == "192.0.2.3")
                #expect(try await store.auditLog(containerID: Fixture.container, actor: "ann@example.com", beforeID: nil, limit: 10).map(\.time) == [Fixture.now + 3, Fixture.now + 1])
                let page = try await store.auditLog(containerID: Fixture.container, actor: nil, beforeID: nil, limit: 2)
                #expect(try await store.auditLog(containerID: Fixture.container, actor: nil, beforeID: page.last?.id, limit: 2).map(\.time) == [Fixture.now + 1])
            },
        ]
    }
}
