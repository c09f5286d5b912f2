"use strict";
// What both pages share: the server's JSON API behind its token (asked for once, then remembered), and its errors in words.

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let token = params.get("token") || localStorage.getItem("manimgen-token") || "";

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json", ...(options.headers || {}) };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) {
    const given = prompt("This server needs its token (printed when it started):");
    if (!given) throw new Error("This server needs the token it printed when it started: reload the page to enter it.");
    token = given;
    localStorage.setItem("manimgen-token", token);
    return api(path, options);
  }
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : await response.text();
  if (!response.ok) throw new Error(typeof body === "object" && body.detail ? detail(body.detail) : String(body));
  return body;
}

function detail(value) {
  return Array.isArray(value) ? value.map((item) => `${(item.loc || []).slice(-1)[0]}: ${item.msg}`).join("; ") : String(value);
}

function withToken(path) {
  return token ? `${path}?token=${encodeURIComponent(token)}` : path;
}
