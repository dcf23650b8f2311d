// The JSON API of the server: a thin fetch wrapper. A seat's token travels only in the
// Authorization header (never in a URL the server sees).

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function request(method, path, { token = null, body = undefined, etag = null, onTag = null } = {}) {
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (etag) headers["If-None-Match"] = etag;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
    });
  } catch (e) {
    throw new ApiError(0, `the server cannot be reached (${e.message})`);
  }
  if (onTag) onTag(response.headers.get("ETag"));
  if (response.status === 304) return null; // the view asked about has not changed
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.error === "string" ? data.error : `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return data;
}

export const getMeta = () => request("GET", "/api/meta");
export const getBoard = () => request("GET", "/api/board");
export const createGame = (body) => request("POST", "/api/games", { body });

/** One seat of one game. */
export class Seat {
  constructor(game, token) {
    this.game = game;
    this.token = token;
    this.etag = null; // the validator of the last view received
  }

  path(suffix = "") {
    return `/api/games/${encodeURIComponent(this.game)}${suffix}`;
  }

  /** The seat's view, or null when it has not changed since the last one received. */
  view(logFrom = 0) {
    return request("GET", this.path(`?log_from=${logFrom}`), {
      token: this.token,
      etag: this.etag,
      onTag: (tag) => (this.etag = tag),
    });
  }

  act(action, version, logFrom = 0) {
    return request("POST", this.path(`/actions?log_from=${logFrom}`), {
      token: this.token,
      body: { action, version },
      onTag: (tag) => (this.etag = tag),
    });
  }

  /** End (abandon) the game for every seat; the server forgets it at once. */
  end() {
    return request("DELETE", this.path(), { token: this.token });
  }
}
