import { type Html, html } from "../html.js";

/** The sign-in form: a token, posted once, kept by the browser in an HttpOnly cookie. */
export function loginPage(asks: string, refusal?: string): Html {
  return html`${refusal ? html`<div class="refusal" role="alert">${refusal}</div>` : ""}
<form class="login" method="post" action="/login">
<p>The console is read-only. Sign in with ${asks}; whoever the cluster authenticates and may <code>get managementplanes.core.navique.com navique</code> may read it.</p>
<label for="token">Token</label>
<textarea id="token" name="token" rows="5" required autocomplete="off" spellcheck="false"></textarea>
<p><button type="submit">Sign in</button></p>
</form>`;
}

/** Why a signed-in user sees nothing: refused by the cluster's authorisation, or the console turned off. */
export function refusalPage(message: string): Html {
  return html`<div class="refusal" role="alert">${message}</div>`;
}
