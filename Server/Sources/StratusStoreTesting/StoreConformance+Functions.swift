import StratusModel
import StratusStore
import Testing

/// Functions' modules and bindings, scheduled jobs and their runs.
extension StoreConformance {
    static var functionCases: [ConformanceCase] {
        [
            ConformanceCase("function modules are kept with their bytes, listed without, replaced, and kept while a function uses them") { store in
                let module = StoredFunctionModule(
                    containerID: Fixture.container, environment: .development, name: "hooks", bytes: [0, 0x61, 0x73, 0x6D, 1, 2, 3], digest: "d1",
                    size: 7, entries: ["before_save"], uploadedAt: Fixture.now
                )
                try await store.saveFunctionModule(module)
                #expect(try await store.functionModule(containerID: Fixture.container, environment: .development, name: "hooks") == module)
                #expect(try await store.functionModule(containerID: Fixture.container, environment: .production, name: "hooks") == nil)
                var listed = module
                listed.bytes = []
                #expect(try await store.functionModules(containerID: Fixture.container) == [listed])
                var replaced = module
                replaced.bytes = [9, 9]
                replaced.digest = "d2"
                try await store.saveFunctionModule(replaced)
                #expect(try await store.functionModule(containerID: Fixture.container, environment: .development, name: "hooks")?.bytes == [9, 9])
                try await store.saveFunctionBinding(FunctionBinding(
                    containerID: Fixture.container, environment: .development, name: "checkNote", module: "hooks", entry: "before_save",
                    trigger: .beforeSave, recordTypes: ["Note"], createdAt: Fixture.now, updatedAt: Fixture.now
                ))
                await #expect {
                    try await store.deleteFunctionModule(containerID: Fixture.container, environment: .development, name: "hooks")
                } throws: { error in (error as? StorageError)?.code == .conflict && "\(error)".contains("checkNote") }
                await #expect {
                    try await store.saveFunctionBinding(FunctionBinding(
                        containerID: Fixture.container, environment: .production, name: "checkNote", module: "hooks", entry: "before_save",
                        trigger: .beforeSave, createdAt: Fixture.now, updatedAt: Fixture.now
                    ))
                } throws: { error in (error as? StorageError)?.code == .notFound }
                try await store.deleteFunctionBinding(containerID: Fixture.container, environment: .development, name: "checkNote")
                try await store.deleteFunctionModule(containerID: Fixture.container, environment: .development, name: "hooks")
                #expect(try await store.functionModules(containerID: Fixture.container).isEmpty)
                await #expect {
                    try await store.deleteFunctionBinding(containerID: Fixture.container, environment: .development, name: "checkNote")
                } throws: { error in (error as? StorageError)?.code == .notFound }
            },
            ConformanceCase("an afterSave function gets an event endpoint that the outbox feeds; rebinding it otherwise removes the endpoint") { store in
                try await store.saveFunctionModule(StoredFunctionModule(
                    containerID: Fixture.container, environment: .development, name: "hooks", bytes: [1], digest: "d", size: 1, entries: ["after"],
                    uploadedAt: Fixture.now
                ))
                var binding = FunctionBinding(
                    containerID: Fixture.container, environment: .development, name: "audit", module: "hooks", entry: "after", trigger: .afterSave,
                    recordTypes: ["Note"], runAsRole: "auditor", grants: ["clock"], limits: .init(instructions: 1000, seconds: 2),
                    createdAt: Fixture.now, updatedAt: Fixture.now
                )
                try await store.saveFunctionBinding(binding)
                #expect(try await store.functionBindings(containerID: Fixture.container) == [binding])
                let endpointID = FunctionBinding.eventEndpointID(environment: .development, name: "audit")
                let endpoint = try #require(try await store.webhookEndpoint(id: endpointID, containerID: Fixture.container))
                #expect(FunctionBinding.functionName(inEndpointURL: endpoint.url) == "audit")
                #expect(endpoint.recordTypes == ["Note"] && endpoint.eventTypes == ["record.created", "record.updated", "record.deleted"])
                let zone = try await Fixture.createZone(store, "inbox")
                _ = try await Fixture.save(store, zone, Fixture.create("n1"))
                #expect(try await store.pendingRecordEvents(limit: 10).map(\.event.record.recordName) == ["n1"])
                binding.trigger = .callable
                try await store.saveFunctionBinding(binding)
                #expect(try await store.webhookEndpoint(id: endpointID, containerID: Fixture.container) == nil)
                #expect(try await store.functionBindings(containerID: Fixture.container).map(\.trigger) == [.callable])
            },
            ConformanceCase("a job's due time is claimed by one caller only; runs are listed newest first and finished") { store in
                let job = ScheduledJob(
                    containerID: Fixture.container, environment: .development, name: "nightly", schedule: "0 3 * * *", target: .function("cleanup"),
                    nextRunAt: Fixture.now, createdAt: Fixture.now, updatedAt: Fixture.now
                )
                try await store.saveScheduledJob(job)
                try await store.saveScheduledJob(ScheduledJob(
                    containerID: Fixture.container, environment: .development, name: "later", schedule: "@daily", target: .webhook(endpointID: "wh-1"),
                    missedRuns: .skip, nextRunAt: Fixture.now + 86_400_000, createdAt: Fixture.now, updatedAt: Fixture.now
                ))
                #expect(try await store.scheduledJobs(containerID: Fixture.container).map(\.name) == ["later", "nightly"])
                #expect(try await store.dueScheduledJobs(now: Fixture.now) == [job])
                let run = ScheduledJobRun(
                    containerID: Fixture.container, environment: .development, job: "nightly", scheduledFor: Fixture.now, startedAt: Fixture.now,
                    node: "node-a", status: .running
                )
                let claims = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            try await store.advanceScheduledJob(
                                containerID: Fixture.container, environment: .development, name: "nightly", from: Fixture.now,
                                to: Fixture.now + 86_400_000, run: run, delivery: nil
                            )
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(claims.filter { $0 }.count == 1, "claims: \(claims)")
                #expect(try await store.dueScheduledJobs(now: Fixture.now).isEmpty)
                var finished = run
                finished.status = .succeeded
                finished.finishedAt = Fixture.now + 5
                finished.result = "{}"
                try await store.finishScheduledRun(finished)
                #expect(try await store.scheduledJobRuns(containerID: Fixture.container, environment: .development, job: "nightly", limit: 10) == [finished])
                // A run handed to a webhook endpoint is queued with the claim.
                try await store.createWebhookEndpoint(WebhookEndpoint(
                    id: "wh-1", containerID: Fixture.container, environment: .development, url: "https://hooks.example.com/a", sealedSecrets: ["s"],
                    createdAt: Fixture.now
                ))
                var queued = run
                queued.job = "later"
                queued.scheduledFor = Fixture.now + 86_400_000
                queued.status = .queued
                let delivery = PendingWebhookDelivery(
                    endpointID: "wh-1", containerID: Fixture.container, environment: .development, orderingKey: "job.later", eventID: "job-1",
                    eventType: "job.run", body: "{}"
                )
                #expect(try await store.advanceScheduledJob(
                    containerID: Fixture.container, environment: .development, name: "later", from: Fixture.now + 86_400_000,
                    to: Fixture.now + 2 * 86_400_000, run: queued, delivery: delivery
                ))
                #expect(try await store.dueWebhookDeliveries(now: Int64.max / 2, limit: 10).map(\.eventID) == ["job-1"])
                try await store.deleteScheduledJob(containerID: Fixture.container, environment: .development, name: "nightly")
                #expect(try await store.scheduledJobRuns(containerID: Fixture.container, environment: .development, job: "nightly", limit: 10).isEmpty)
                await #expect {
                    try await store.deleteScheduledJob(containerID: Fixture.container, environment: .development, name: "nightly")
                } throws: { error in (error as? StorageError)?.code == .notFound }
            },
        ]
    }
}
