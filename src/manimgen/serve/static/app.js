"use strict";
// The page: ask for a video, follow its rounds over Server-Sent Events, show the video and the code.

let current = null;
let stream = null;
let plan = null; // the checklist GET /api/checklist gave for the sentence, as the person edits it

function fill(select, names, chosen) {
  select.replaceChildren(...names.map((name) => new Option(name, name, false, name === chosen)));
}

// A choice per key of `described` (name -> what it is for): the name and the words' first clause, all of them on hover.
function fillDescribed(select, described, chosen) {
  select.replaceChildren(...Object.entries(described).map(([name, words]) => {
    const option = new Option(`${name} (${words.split(/[,(]/)[0].trim()})`, name, false, name === chosen);
    option.title = words;
    return option;
  }));
}

// The default first as "Recommended", then the others for comparing: each in a teacher's words, its name and the researcher's summary on hover.
function fillStrategies(described, words, chosen) {
  const said = (name) => words[name] ? words[name][0].toUpperCase() + words[name].slice(1) : name;
  const recommended = new Option("Recommended", chosen, true, true);
  recommended.title = `${said(chosen)} (${chosen})`;
  const others = document.createElement("optgroup");
  others.label = "Other ways, for comparing";
  others.append(...Object.entries(described).filter(([name]) => name !== chosen).map(([name, summary]) => {
    const option = new Option(said(name), name);
    option.title = `${name}: ${summary}`;
    return option;
  }));
  $("strategy").replaceChildren(recommended, others);
}

async function loadOptions() {
  const options = await api("/api/options");
  fill($("model"), options.models.includes(options.default_model) ? options.models : [options.default_model, ...options.models], options.default_model);
  fillStrategies(options.strategies, options.strategy_words || {}, options.default_strategy);
  fill($("quality"), options.qualities, "low");
  fillDescribed($("aspect"), options.aspects, Object.keys(options.aspects)[0]);
  fill($("format"), Object.keys(options.formats), Object.keys(options.formats)[0]);
  [...$("format").options].forEach((option) => (option.title = options.formats[option.value]));
}

function showError(message) {
  $("form-error").textContent = message;
  $("form-error").hidden = !message;
}

async function loadPlan() {
  const sentence = $("sentence").value.trim();
  if (!sentence) {
    $("plan").replaceChildren(Object.assign(document.createElement("li"), { textContent: "Write the sentence first." }));
    return;
  }
  try {
    plan = await api(`/api/checklist?sentence=${encodeURIComponent(sentence)}`);
    plan.requirements.forEach((item) => (item.keep = true));
    showPlan();
  } catch (error) {
    showError(error.message);
  }
}

function showPlan() {
  $("plan").replaceChildren(...plan.requirements.map((item) => {
    const row = document.createElement("li");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", checked: item.keep, title: "check this in the video" });
    box.addEventListener("change", () => (item.keep = box.checked));
    const words = document.createElement("span");
    words.textContent = item.kind === "look" ? `${item.phrase} (not checked: look for it)` : item.phrase;
    row.append(box, " ", words);
    return row;
  }));
}

function addToPlan() {
  const text = $("plan-extra").value.trim();
  if (!text || !plan) return;
  plan.requirements.push({ kind: "look", phrase: text, text, keep: true });
  $("plan-extra").value = "";
  showPlan();
}

function editedPlan() {
  if (!plan || plan.sentence !== $("sentence").value.trim()) return null;
  return { sentence: plan.sentence, requirements: plan.requirements.filter((item) => item.keep).map(({ keep, ...item }) => item) };
}

async function submit(event) {
  event.preventDefault();
  showError("");
  $("go").disabled = true;
  try {
    const body = { sentence: $("sentence").value, model: $("model").value, strategy: $("strategy").value, quality: $("quality").value, aspect: $("aspect").value, format: $("format").value };
    const checklist = editedPlan();
    if (checklist) body.checklist = checklist;
    const job = await api("/api/jobs", { method: "POST", body: JSON.stringify(body) });
    follow(job);
  } catch (error) {
    showError(error.message);
  } finally {
    $("go").disabled = false;
  }
}

function follow(job, { scroll = false } = {}) {
  current = job;
  stageText = "";
  usually = "";
  if (stream) stream.close();
  $("job").hidden = false;
  $("job-title").textContent = job.kind === "render" ? "Rendering edited code" : job.sentence;
  $("rounds").replaceChildren();
  $("checklist").replaceChildren();
  $("checklist-section").hidden = true;
  clearResult();
  showJobError("");
  setStatus(job);
  if (scroll) $("job").scrollIntoView({ behavior: "smooth", block: "start" });
  stream = new EventSource(withToken(`/api/jobs/${job.id}/events`));
  stream.addEventListener("round", (message) => addRound(JSON.parse(message.data)));
  stream.addEventListener("render", (message) => addRender(JSON.parse(message.data)));
  stream.addEventListener("checklist", (message) => showChecklist(JSON.parse(message.data).items.map((phrase) => ({ phrase, status: "pending" }))));
  stream.addEventListener("status", async () => {
    setStatus(await api(`/api/jobs/${job.id}`));
    loadHistory();
  });
  stream.addEventListener("stage", (message) => showStage(JSON.parse(message.data)));
  stream.addEventListener("end", async () => {
    stream.close();
    await finished(await api(`/api/jobs/${job.id}`));
  });
}

let stageText = ""; // what the running job is doing now: "Writing the scene (round 2)…"
let usually = ""; // how long a job of its kind usually takes

function showStage(stage) {
  const what = stage.stage.charAt(0).toUpperCase() + stage.stage.slice(1);
  stageText = `${what}${stage.rounds ? ` (round ${stage.rounds + 1})` : ""}…`;
  if ($("job-status").classList.contains("running")) $("job-status").textContent = stageText + usually;
}

const ENDED = ["done", "failed", "cancelled", "interrupted"];

// The player, the picture, the links and the code of a job, all emptied: a job shows only what is its own.
function clearResult() {
  $("result").hidden = true;
  $("code-panel").hidden = true;
  $("video").removeAttribute("src");
  $("video").load();
  $("still").removeAttribute("src");
  $("still").hidden = true;
  for (const link of [$("download-video"), $("download-code")]) {
    link.removeAttribute("href");
    link.hidden = true;
  }
}

function showJobError(message) {
  $("job-error").textContent = message;
  $("job-error").hidden = !message;
}

// What a job's status says, with its reason once (no "Cancelled. cancelled while running").
function statusWords(job) {
  const words = { queued: "Waiting for a free worker…", running: "Writing and rendering the scene…", done: "Done.",
    failed: "No video this time:", cancelled: "Cancelled.", interrupted: "Interrupted: the server stopped while this ran." };
  const said = words[job.status] || job.status;
  if (!job.error) return said.replace(/:$/, ".");
  const reason = job.error.trim();
  if (reason.toLowerCase().startsWith(job.status)) return reason.charAt(0).toUpperCase() + reason.slice(1);
  return `${said} ${reason}`;
}

// How long a job of this kind usually takes, from the server's recent ones: " (usually about 40 s)".
function typical(job) {
  return job.typical_s ? ` (usually about ${Math.max(5, Math.round(job.typical_s / 5) * 5)} s)` : "";
}

function setStatus(job) {
  const status = $("job-status");
  status.className = `status ${job.status}`;
  usually = job.typical_s !== undefined ? typical(job) : usually;
  if (job.status === "queued" && job.ahead) status.textContent = `Waiting: ${job.ahead} job${job.ahead > 1 ? "s" : ""} before this one${usually}…`;
  else status.textContent = job.status === "running" && stageText ? stageText + usually : statusWords(job) + (["queued", "running"].includes(job.status) ? usually : "");
  const ended = ENDED.includes(job.status);
  $("cancel").hidden = ended;
  $("cancel").disabled = false;
  $("retry").hidden = !["failed", "cancelled", "interrupted"].includes(job.status);
}

function addRound(round) {
  const item = document.createElement("li");
  const rendered = round.rendered === true;
  const verdict = rendered ? (round.error ? "warn" : "ok") : "bad";
  item.innerHTML = `<strong></strong> <span class="${verdict}"></span> <span class="time"></span><span class="detail"></span>`;
  item.children[0].textContent = round.kind;
  item.children[1].textContent = rendered ? (round.error ? "rendered, with problems" : "rendered") : round.status;
  item.children[2].textContent = `${round.seconds} s`;
  const notes = [round.error, ...round.fixes.map((fix) => `fixed: ${fix}`)].filter(Boolean);
  item.children[3].textContent = notes.join(" · ");
  $("rounds").append(item);
}

function showChecklist(verdicts) {
  const marks = { held: "✓", failed: "✗", unverifiable: "?", pending: "…" };
  $("checklist").replaceChildren(...verdicts.map((verdict) => {
    const item = document.createElement("li");
    item.className = verdict.status;
    item.textContent = `${marks[verdict.status] || "?"} ${verdict.phrase}`;
    if ((verdict.status === "failed" || verdict.status === "unverifiable") && verdict.seen) {
      const seen = document.createElement("span");
      seen.className = "detail";
      seen.textContent = ` — ${verdict.seen}`;
      item.append(seen);
    }
    return item;
  }));
  $("checklist-section").hidden = verdicts.length === 0;
}

function addRender(render) {
  addRound({ kind: "render", rendered: render.ok, status: render.status, error: render.error || "", fixes: [], seconds: "–" });
}

async function finished(job) {
  if (!current || current.id !== job.id) return; // another job was opened meanwhile
  setStatus(job);
  $("result").hidden = !job.video;
  const video = $("video");
  const still = $("still");
  if (job.video) {
    const source = withToken(`/api/jobs/${job.id}/video`);
    const isPicture = /\.(png|gif)$/.test(job.video);
    video.hidden = isPicture;
    still.hidden = !isPicture;
    if (isPicture) still.src = source; else { video.src = source; video.load(); }
    $("download-video").href = source;
    $("download-video").hidden = false;
  } else {
    video.hidden = true;
    still.hidden = true;
    $("download-video").hidden = true;
  }
  if (job.kind === "generate" && ["done", "failed"].includes(job.status)) {
    const trace = await api(`/api/jobs/${job.id}/trace`).catch(() => null);
    if (trace && trace.checks) showChecklist(trace.checks.verdicts);
    else if (trace) {
      const phrases = [...$("checklist").children].map((item) => item.textContent.slice(2));
      showChecklist(phrases.map((phrase) => ({ phrase, status: "unverifiable", seen: `the ${trace.strategy} strategy does not check it; look for it` })));
    }
  }
  if (job.scene) {
    const code = await api(`/api/jobs/${job.id}/code`);
    $("code").value = code;
    $("code-panel").hidden = false;
    $("download-code").href = withToken(`/api/jobs/${job.id}/code`);
    $("download-code").hidden = false;
  } else {
    $("download-code").hidden = true;
  }
  loadHistory();
}

async function rerender() {
  try {
    const job = await api("/api/render", {
      method: "POST",
      body: JSON.stringify({ code: $("code").value, quality: $("quality").value, aspect: $("aspect").value, format: $("format").value, sentence: current ? current.sentence : "" }),
    });
    follow(job);
  } catch (error) {
    showError(error.message);
  }
}

async function loadHistory() {
  const jobs = await api("/api/jobs?limit=24");
  $("history").replaceChildren(...jobs.map((job) => {
    const item = document.createElement("li");
    const picture = job.video
      ? Object.assign(document.createElement("img"), { src: withToken(`/api/jobs/${job.id}/poster`), alt: "", loading: "lazy" })
      : Object.assign(document.createElement("div"), { className: "none", textContent: job.status });
    const caption = document.createElement("div");
    caption.textContent = job.sentence || "(edited code)";
    item.append(picture, caption);
    if (job.status !== "done") {
      const state = Object.assign(document.createElement("div"), { className: `state ${job.status}`, textContent: statusWords(job) });
      item.append(state);
    }
    item.addEventListener("click", () => follow(job, { scroll: true }));
    return item;
  }));
}

$("ask").addEventListener("submit", submit);
$("plan-panel").addEventListener("toggle", () => $("plan-panel").open && editedPlan() === null && loadPlan());
$("sentence").addEventListener("change", () => $("plan-panel").open && loadPlan());
$("plan-add").addEventListener("click", addToPlan);
$("rerender").addEventListener("click", rerender);
$("cancel").addEventListener("click", async () => {
  if (!current) return;
  $("cancel").disabled = true;
  $("job-status").textContent = "Cancelling… (the model's current answer ends first)";
  try {
    setStatus(await api(`/api/jobs/${current.id}/cancel`, { method: "POST" }));
  } catch (error) {
    $("cancel").disabled = false;
    showJobError(`Could not cancel: ${error.message}`);
  }
});
$("retry").addEventListener("click", async () => {
  if (!current) return;
  try {
    follow(await api(`/api/jobs/${current.id}/retry`, { method: "POST" }));
  } catch (error) {
    showJobError(`Could not try again: ${error.message}`);
  }
});
loadOptions().then(loadHistory).then(showLessonLink).catch((error) => showError(error.message));

// The lesson page's link, where this server has lessons (asked without prompting for a token again).
async function showLessonLink() {
  const response = await fetch("/api/lessons/options", { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  $("lesson-link").hidden = !response.ok;
}
