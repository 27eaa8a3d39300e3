/**
 * A one-time login link opened this page (`/login?token=…`). The token is taken off the
 * address at once, before anything renders, so it stays out of history and of any later
 * request; the sign-in page then asks the server who it signs in as.
 */
function takeLoginToken(): string | null {
  if (window.location.pathname !== '/login') return null;
  const token = new URLSearchParams(window.location.search).get('token');
  window.history.replaceState(null, '', '/' + window.location.hash);
  return token || null;
}

export const pendingLogin: { token: string | null } = { token: takeLoginToken() };
