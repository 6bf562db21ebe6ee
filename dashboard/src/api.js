// Talks to tandem serve's API with the user's token (kept in this tab's sessionStorage only). The live view is a
// server-sent event stream read with fetch, so that the token goes in the Authorization header, never in a URL.
const TOKEN_KEY = 'tandem-token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (t) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function get(path) {
  const res = await fetch('/api/v1' + path, { headers: { Authorization: 'Bearer ' + token.get() } });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, body.error || res.statusText);
  return body;
}

export async function post(path) {
  const res = await fetch('/api/v1' + path, { method: 'POST', headers: { Authorization: 'Bearer ' + token.get(), 'Content-Type': 'application/json' }, body: '{}' });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, body.error || res.statusText);
  return body;
}

/**
 * Follows a server-sent event stream; calls onEvent(name, data) per event, onError(error) when it breaks (the
 * caller reconnects). Returns a function that stops following.
 */
export function follow(path, onEvent, onError) {
  const abort = new AbortController();
  (async () => {
    const res = await fetch('/api/v1' + path, { headers: { Authorization: 'Bearer ' + token.get(), Accept: 'text/event-stream' }, signal: abort.signal });
    if (!res.ok) {
      const body = await res.json().catch(() => ({}));
      throw new ApiError(res.status, body.error || res.statusText);
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        const data = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) name = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        }
        if (data.length) onEvent(name, JSON.parse(data.join('\n')));
      }
    }
  })().catch((e) => { if (!abort.signal.aborted) onError(e); });
  return () => abort.abort();
}
