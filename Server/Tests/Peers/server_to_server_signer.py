#!/usr/bin/env python3
"""An independent server-to-server client: signs CloudKit Web Services requests as the protocol
describes them (ECDSA P-256 SHA-256 over "date:base64(sha256(body)):subpath", DER, base64), with the
variants real clients send, and prints what the server answered to each as JSON.

Usage: server_to_server_signer.py BASE_URL ADMIN_KEY CONTAINER_ID
"""
import base64
import datetime
import hashlib
import json
import sys
import urllib.error
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

BASE, ADMIN_KEY, CONTAINER = sys.argv[1:4]


def http(method, path, body=b"", headers=None):
    request = urllib.request.Request(BASE + path, data=body if method != "GET" else None, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def register(key):
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    status, body = http("POST", f"/admin/1/{CONTAINER}/keys", json.dumps({"publicKey": pem}).encode(),
                        {"Authorization": "Bearer " + ADMIN_KEY, "Content-Type": "application/json"})
    assert status == 201, (status, body)
    return json.loads(body)["keyID"]


KEY = ec.generate_private_key(ec.SECP256R1())
OTHER_KEY = ec.generate_private_key(ec.SECP256R1())
KEY_ID = register(KEY)


def signed(method, path, body=b"", sign_path=None, date=None, hash_empty_body=True, content_type="application/json",
           key=KEY, key_id=None, sent_body=None):
    date = date or datetime.datetime.now(datetime.timezone.utc)
    date_text = date.strftime("%Y-%m-%dT%H:%M:%SZ")
    digest = base64.b64encode(hashlib.sha256(body).digest()).decode() if (body or hash_empty_body) else ""
    subpath = sign_path if sign_path is not None else path.split("?")[0]
    message = f"{date_text}:{digest}:{subpath}".encode()
    signature = base64.b64encode(key.sign(message, ec.ECDSA(hashes.SHA256()))).decode()
    headers = {
        "X-Apple-CloudKit-Request-KeyID": key_id or KEY_ID,
        "X-Apple-CloudKit-Request-ISO8601Date": date_text,
        "X-Apple-CloudKit-Request-SignatureV1": signature,
        "Content-Type": content_type,
    }
    status, answer = http(method, path, sent_body if sent_body is not None else body, headers)
    return status, answer


DB = f"/database/1/{CONTAINER}/development/public"
create = json.dumps({"operations": [{"operationType": "create", "record": {
    "recordName": "signed-1", "recordType": "Note", "fields": {"title": {"value": "signed"}}}}]}).encode()
query = json.dumps({"query": {"recordType": "Note"}}).encode()
results = {}

status, answer = signed("POST", DB + "/records/modify", create)
results["create"] = status
results["create_error"] = json.loads(answer)["records"][0].get("serverErrorCode") if status == 200 else None
results["query_path_signed_without_query_string"] = signed("POST", DB + "/records/query?trace=1", query)[0]
results["query_path_signed_with_query_string"] = signed("POST", DB + "/records/query?trace=1", query, sign_path=DB + "/records/query?trace=1")[0]
results["get_empty_body_hashed"] = signed("GET", DB + "/zones/list")[0]
results["get_empty_body_left_empty"] = signed("GET", DB + "/zones/list", hash_empty_body=False)[0]
results["text_plain_body"] = signed("POST", DB + "/records/query", query, content_type="text/plain")[0]
results["tampered_body"] = signed("POST", DB + "/records/query", query, sent_body=query.replace(b"Note", b"Nope"))[0]
results["tampered_path"] = signed("POST", DB + "/records/lookup", query, sign_path=DB + "/records/query")[0]
results["date_10_minutes_old"] = signed("POST", DB + "/records/query", query,
                                        date=datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=10))[0]
results["wrong_key"] = signed("POST", DB + "/records/query", query, key=OTHER_KEY)[0]
results["unknown_key_id"] = signed("POST", DB + "/records/query", query, key_id="0" * 64)[0]
results["private_database"] = signed("POST", f"/database/1/{CONTAINER}/development/private/records/query", query)[0]
status, _ = http("DELETE", f"/admin/1/{CONTAINER}/keys/{KEY_ID}", headers={"Authorization": "Bearer " + ADMIN_KEY})
results["revoke"] = status
results["after_revoke"] = signed("POST", DB + "/records/query", query)[0]
print(json.dumps(results, sort_keys=True))
