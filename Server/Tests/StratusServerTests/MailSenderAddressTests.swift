@testable import StratusServer
import StratusServices
import Testing

/// The sender of mail when none is set.
@Suite struct MailSenderAddressTests {
    @Test("with no sender set, mail goes out from no-reply@ the request's host; an IP address is written as an address literal")
    func derivedSender() {
        #expect(AccountMailer.derivedSender(host: "127.0.0.1") == "no-reply@[127.0.0.1]")
        #expect(AccountMailer.derivedSender(host: "[::1]") == "no-reply@[IPv6:::1]")
        #expect(AccountMailer.derivedSender(host: "stratus.example.com") == "no-reply@stratus.example.com")
        #expect(AccountMailer.derivedSender(host: "10.0.0.300") == "no-reply@10.0.0.300")
    }
}
