// The console's JSON API (docs/console.md): every call carries the tab's token, if it has one.
const TOKEN_KEY = 'futureq-token';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value) {
  if (value) {
    sessionStorage.setItem(TOKEN_KEY, value);
  } else {
    sessionStorage.removeItem(TOKEN_KEY);
  }
}

function headers(extra) {
  const h = Object.assign({ 'Accept': 'application/json' }, extra || {});
  if (token()) {
    h['Authorization'] = 'Bearer ' + token();
  }
  return h;
}

export async function call(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
  }
  const response = await fetch('/api/' + path, init);
  const text = await response.text();
  let json = {};
  try {
    json = text ? JSON.parse(text) : {};
  } catch (e) {
    json = { error: text };
  }
  if (!response.ok) {
    throw new ApiError(response.status, json.code || String(response.status), json.error || response.statusText);
  }
  return json;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body || {});
export const del = (path) => call('DELETE', path);

/**
 * Server-sent events read with fetch (EventSource cannot send the token header). Calls onEvent(name, data) per
 * event; returns a function that closes the stream. A stream that ends or fails is opened again after 2 s.
 */
export function stream(path, onEvent, onError) {
  const control = new AbortController();
  let closed = false;
  async function run() {
    try {
      const response = await fetch('/api/' + path, { headers: headers({ 'Accept': 'text/event-stream' }),
        signal: control.signal });
      if (!response.ok) {
        const json = await response.json().catch(() => ({}));
        throw new ApiError(response.status, json.code, json.error || response.statusText);
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          break;
        }
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = 'message';
          let data = '';
          for (const line of raw.split('\n')) {
            if (line.startsWith('event: ')) {
              name = line.slice(7);
            } else if (line.startsWith('data: ')) {
              data += line.slice(6);
            }
          }
          onEvent(name, data ? JSON.parse(data) : null);
        }
      }
    } catch (e) {
      if (closed) {
        return;
      }
      if (onError) {
        onError(e);
      }
      if (e instanceof ApiError && (e.status === 401 || e.status === 403 || e.status === 404)) {
        return; // opening it again would fail the same way
      }
    }
    if (!closed) {
      setTimeout(() => { if (!closed) { run(); } }, 2000);
    }
  }
  run();
  return () => {
    closed = true;
    control.abort();
  };
}
