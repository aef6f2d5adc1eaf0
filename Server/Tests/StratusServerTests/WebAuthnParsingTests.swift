import Foundation
@testable import StratusServer
import StratusServices
import StratusStoreTesting
import Testing

/// The CBOR and authenticator-data readers on what authenticators never send: they refuse, and never crash.
@Suite struct WebAuthnParsingTests {
    @Test("CBOR: values read back; truncated, indefinite, over-long and too deep input is refused")
    func cbor() throws {
        // {1: 2, 3: -7, "a": h'0102', "t": [true, null]}
        let bytes: [UInt8] = [0xa4, 0x01, 0x02, 0x03, 0x26, 0x61, 0x61, 0x42, 0x01, 0x02, 0x61, 0x74, 0x82, 0xf5, 0xf6]
        let value = try CBOR.decodeWhole(bytes)
        #expect(value[1]?.integer == 2 && value[3]?.integer == -7)
        #expect(value["a"] == .bytes([1, 2]) && value["t"] == .array([.bool(true), .null]))
        for (what, bad) in [
            ("truncated", Array(bytes.dropLast())),
            ("trailing", bytes + [0x00]),
            ("indefinite length", [0x5f, 0x41, 0x00, 0xff]),
            ("a byte string longer than the data", [0x5a, 0xff, 0xff, 0xff, 0xff, 0x00]),
            ("an array longer than the data", [0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            ("a float", [0xfa, 0x3f, 0x80, 0x00, 0x00]),
            ("not UTF-8", [0x62, 0xc3, 0x28]),
            ("too deep", [UInt8](repeating: 0x81, count: 40) + [0x00]),
        ] as [(String, [UInt8])] {
            #expect(throws: CBOR.DecodingError.self, "\(what)") { try CBOR.decodeWhole(bad) }
        }
    }

    @Test("authenticator data: flags, counter and credential read back; truncated or trailing data is refused; random bytes never crash")
    func authenticatorData() throws {
        let authenticator = SoftwarePasskeys(origin: "https://example.com")
        let made = authenticator.register(relyingPartyID: "example.com", challenge: [1, 2, 3], userHandle: [9])
        let object = try CBOR.decodeWhole(made.attestationObject)
        guard case .bytes(let bytes) = object["authData"] else { throw TestFailure("no authData in \(object)") }
        let data = try AuthenticatorData(bytes)
        #expect(data.userPresent && data.userVerified && data.signCount == 0)
        #expect(data.attestedCredential?.credentialID == made.credentialID)
        _ = try PasskeyPublicKey(cose: try #require(data.attestedCredential?.publicKey))
        #expect(throws: ServiceError.self) { try AuthenticatorData(Array(bytes.dropLast())) }
        #expect(throws: ServiceError.self) { try AuthenticatorData(bytes + [0]) }
        #expect(throws: ServiceError.self) { try AuthenticatorData(Array(bytes.prefix(36))) }

        var generator = SeededGenerator(seed: 32)
        for length in 0..<400 {
            let noise = (0..<(length % 120)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = try? CBOR.decode(noise)
            _ = try? AuthenticatorData(Array(bytes.prefix(37)) + noise)
            _ = try? PasskeyPublicKey(cose: noise)
        }
    }
}
