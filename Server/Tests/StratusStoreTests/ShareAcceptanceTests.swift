import StratusModel
import StratusStore
import Testing

@Suite struct ShareAcceptanceTests {
    static func participant(_ id: String, user: String? = nil, email: String? = nil, status: AcceptanceStatus = .invited) -> ShareParticipant {
        ShareParticipant(participantID: id, userRecordName: user, emailAddress: email, permission: .readOnly, type: .user, acceptanceStatus: status)
    }

    static func details(_ participants: [ShareParticipant], publicPermission: SharePermission = .none) -> ShareDetails {
        ShareDetails(shortGUID: "g", publicPermission: publicPermission, ownerRecordName: "_owner", rootRecordName: "root", participants: participants)
    }

    static let bob = ShareUser(userRecordName: "_bob", emailAddress: "bob@example.com", phoneNumber: nil)

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var details: ShareDetails
        var user: ShareUser = ShareAcceptanceTests.bob
        /// `nil` when the acceptance is refused.
        var decision: ShareAcceptance.Decision?
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the owner accepts nothing", details: details([]), user: ShareUser(userRecordName: "_owner", emailAddress: nil, phoneNumber: nil), decision: .nothing),
        Case(name: "invited by record name", details: details([participant("p1", user: "_bob")]), decision: .accept(participantID: "p1")),
        Case(name: "invited by email address", details: details([participant("p2", email: "bob@example.com")]), decision: .accept(participantID: "p2")),
        Case(name: "accepted already", details: details([participant("p1", user: "_bob", status: .accepted)]), decision: .nothing),
        Case(name: "an email invitation someone else accepted is not bob's", details: details([participant("p3", user: "_carol", email: "bob@example.com", status: .accepted)]), decision: nil),
        Case(name: "a public share lets anyone join with its permission", details: details([], publicPermission: .readWrite), decision: .join(.readWrite)),
        Case(name: "a private share refuses strangers", details: details([participant("p1", user: "_carol")]), decision: nil),
    ]

    @Test("acceptance decides by participant, then by public permission", arguments: cases)
    func decides(_ testCase: Case) {
        let decision = try? ShareAcceptance.decide(testCase.details, for: testCase.user)
        #expect(decision == testCase.decision)
    }
}
