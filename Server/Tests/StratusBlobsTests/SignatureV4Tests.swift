import Foundation
@testable import StratusBlobs
import Testing

@Suite struct SignatureV4Tests {
    /// AWS's published example of a signed S3 GET (Signature V4 documentation, "GET Object").
    @Test("signs AWS's documented GET Object example to its published signature")
    func awsExample() {
        let signer = SignatureV4(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
        let headers = signer.sign(
            SignatureV4.Request(
                method: "GET", path: "/test.txt", headers: ["host": "examplebucket.s3.amazonaws.com", "range": "bytes=0-9"],
                payloadHash: SignatureV4.payloadHash([])
            ),
            at: Date(timeIntervalSince1970: 1_369_353_600)
        )
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("query strings are sorted and percent-encoded as S3 expects")
    func canonicalQuery() {
        #expect(SignatureV4.canonicalQuery([("uploads", ""), ("prefix", "a b/c")]) == "prefix=a%20b%2Fc&uploads=")
        #expect(SignatureV4.encode("photos/ä 1.png", keepingSlashes: true) == "photos/%C3%A4%201.png")
    }
}
