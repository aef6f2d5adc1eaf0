import StratusStore
import Testing

/// The one password rule of users' accounts and the one of operators, as values.
@Suite struct PasswordPolicyTests {
    @Test("users need 8 characters, operators 12, both at most 1,024 bytes; characters are counted as a person counts them", arguments: [
        (PasswordPolicy.user, "seven77", "needs at least 8 characters"),
        (PasswordPolicy.user, "eight888", nil),
        (PasswordPolicy.user, "👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦", "needs at least 8 characters"),
        (PasswordPolicy.user, String(repeating: "é", count: 513), "may have at most 1024 bytes"),
        (PasswordPolicy.user, String(repeating: "e", count: 1024), nil),
        (PasswordPolicy.operators, "eleven 1111", "needs at least 12 characters"),
        (PasswordPolicy.operators, "twelve 12121", nil),
    ])
    func refusals(policy: PasswordPolicy, password: String, refusal: String?) {
        #expect(policy.refusal(of: password) == refusal)
    }
}
