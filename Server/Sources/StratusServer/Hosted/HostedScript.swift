import StratusServices
import Hummingbird

/// The one script of the hosted pages, for the sign-in page:
/// - **The passkey button.** It asks this server for options, lets the browser's authenticator answer, and posts the
///   answer with the button's form; the server checks it as the API's `signin/passkey` does. Without WebAuthn in the
///   browser the button stays hidden.
/// - **CloudKit JS's popup.** Opened without `?redirect=`, the page is a popup whose opener waits for a message: once
///   signed in, the page posts `{ckSession, ckWebAuthToken}` to its opener, addressed to each origin the container's
///   `redirectURLs` allow (a window of another origin receives nothing), and closes. Opened by no window, it says so.
enum HostedScript {
    static let path = "/account/1/passkeys.js"

    static let source = """
        "use strict";
        (function () {
          const done = document.getElementById("signed-in");
          if (done) {
            if (!window.opener) {
              done.textContent = "You are signed in, but no app is waiting for this window: sign in from the app.";
              return;
            }
            const session = done.dataset.session;
            for (const origin of done.dataset.origins.split(" ")) {
              try { window.opener.postMessage({ ckSession: session, ckWebAuthToken: session }, origin); } catch (error) {}
            }
            window.close();
            return;
          }
          const popup = document.getElementById("popup-only");
          if (popup && !window.opener) {
            for (const element of document.querySelectorAll("form, a.button")) element.style.display = "none";
            popup.hidden = false;
            return;
          }
          const button = document.getElementById("passkey");
          if (!button || !window.PublicKeyCredential) return;
          button.hidden = false;
          const form = button.form;
          const failure = document.getElementById("passkey-error");
          const bytes = (text) => {
            const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
            return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), (c) => c.charCodeAt(0));
          };
          const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
            .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
          button.addEventListener("click", async () => {
            failure.textContent = "";
            button.disabled = true;
            try {
              const token = form.elements.secondFactorToken ? form.elements.secondFactorToken.value : null;
              const reply = await fetch(button.dataset.options, {
                method: "POST", headers: { "Content-Type": "application/json" },
                body: JSON.stringify(token ? { secondFactorToken: token } : {}),
              });
              const options = await reply.json();
              if (!reply.ok) throw new Error(options.reason || "the server refused");
              const credential = await navigator.credentials.get({ publicKey: {
                challenge: bytes(options.challenge), rpId: options.rpId, timeout: options.timeout,
                userVerification: options.userVerification,
                allowCredentials: options.allowCredentials.map((c) => ({ type: "public-key", id: bytes(c.id) })),
              } });
              const response = credential.response;
              form.elements.credential.value = JSON.stringify({
                id: credential.id, type: "public-key", response: {
                  clientDataJSON: text(response.clientDataJSON), authenticatorData: text(response.authenticatorData),
                  signature: text(response.signature), userHandle: response.userHandle ? text(response.userHandle) : null,
                },
              });
              form.submit();
            } catch (error) {
              failure.textContent = "No passkey signed you in (" + error.message + ").";
              button.disabled = false;
            }
          });
        })();
        """

    static func serve(_ request: Request, context: StratusRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/javascript; charset=utf-8"
        headers[.cacheControl] = "public, max-age=300"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: source)))
    }
}
