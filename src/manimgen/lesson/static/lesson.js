"use strict";
// The lesson page: plan the scenes (and edit them), make the lesson, follow it scene by scene, play it with captions.

let board = null; // the storyboard the person sees and edits
let current = null;
let stream = null;

function showError(message) {
  $("form-error").textContent = message;
  $("form-error").hidden = !message;
}

async function loadOptions() {
  const options = await api("/api/lessons/options");
  $("scenes").replaceChildren(...options.scenes.map((count) => new Option(String(count), String(count), false, count === options.default_scenes)));
  $("voice").replaceChildren(...Object.entries(options.voices).map(([name, words]) => {
    const option = new Option(name === options.default_voice ? `${name} (offline voice)` : name, name, false, name === options.default_voice);
    option.title = words;
    return option;
  }));
}

async function plan() {
  showError("");
  $("plan").disabled = true;
  $("plan").textContent = "Planning… (about a minute)";
  try {
    board = await api("/api/lessons/storyboard", { method: "POST", body: JSON.stringify({ topic: $("topic").value, scenes: Number($("scenes").value) }) });
    showBoard();
  } catch (error) {
    showError(error.message);
  } finally {
    $("plan").disabled = false;
    $("plan").textContent = "Plan the scenes";
  }
}

function field(tag, value, onInput, attributes = {}) {
  const element = Object.assign(document.createElement(tag), attributes);
  element.value = value;
  element.addEventListener("input", () => onInput(element.value));
  return element;
}

function showBoard() {
  $("board-section").hidden = false;
  $("board-title").textContent = `The plan: ${board.title}`;
  $("board").replaceChildren(...board.scenes.map((scene, index) => {
    const item = document.createElement("li");
    item.className = "scene";
    const title = field("input", scene.title, (value) => (scene.title = value), { className: "scene-title", maxLength: 80 });
    const said = field("textarea", scene.narration.join("\n"), (value) => (scene.narration = value.split("\n").map((line) => line.trim()).filter(Boolean)), { rows: 3, className: "narration" });
    const shows = field("textarea", scene.shows, (value) => { scene.shows = value; delete scene.checklist; }, { rows: 2, className: "shows" });
    const labels = ["Scene title", "What the voice says (one line each)", "What the scene shows"].map((text) => Object.assign(document.createElement("span"), { className: "field", textContent: text }));
    const checked = (scene.checklist?.requirements || []).filter((requirement) => requirement.kind !== "look").map((requirement) => requirement.phrase);
    const note = Object.assign(document.createElement("p"), { className: "detail", textContent: checked.length ? `Checked in the video: ${checked.join("; ")}` : "" });
    item.append(labels[0], title, labels[1], said, labels[2], shows, note);
    item.dataset.index = String(index);
    return item;
  }));
}

async function submit(event) {
  event.preventDefault();
  showError("");
  $("go").disabled = true;
  try {
    const body = board ? { storyboard: board, voice: $("voice").value } : { topic: $("topic").value, scenes: Number($("scenes").value), voice: $("voice").value };
    follow(await api("/api/lessons", { method: "POST", body: JSON.stringify(body) }));
  } catch (error) {
    showError(error.message);
  } finally {
    $("go").disabled = false;
  }
}

function follow(job) {
  current = job;
  if (stream) stream.close();
  $("job").hidden = false;
  $("job-title").textContent = job.sentence;
  $("scenes-done").replaceChildren();
  $("result").hidden = true;
  $("video").replaceChildren();
  $("video").removeAttribute("src");
  setStatus(job);
  $("job").scrollIntoView({ behavior: "smooth", block: "start" });
  stream = new EventSource(withToken(`/api/jobs/${job.id}/events`));
  stream.addEventListener("stage", (message) => {
    const stage = JSON.parse(message.data).stage;
    $("job-status").textContent = `${stage.charAt(0).toUpperCase()}${stage.slice(1)}…`;
  });
  stream.addEventListener("storyboard", (message) => {
    if (!board) {
      board = JSON.parse(message.data).storyboard;
      showBoard();
    }
  });
  stream.addEventListener("scene", (message) => {
    const scene = JSON.parse(message.data);
    const item = document.createElement("li");
    item.className = scene.fallback ? "failed" : "held";
    item.textContent = `${scene.fallback ? "✗" : "✓"} ${scene.title}${scene.fallback ? ": no animation, its title is shown while the voice speaks" : ""}`;
    $("scenes-done").append(item);
  });
  stream.addEventListener("status", async () => setStatus(await api(`/api/jobs/${job.id}`)));
  stream.addEventListener("end", async () => {
    stream.close();
    finished(await api(`/api/jobs/${job.id}`));
  });
}

function setStatus(job) {
  const words = { queued: "Waiting for a free worker…", running: "Planning and making the scenes…", done: "Done.", failed: "No lesson this time:", cancelled: "Cancelled.", interrupted: "Interrupted: the server stopped while this ran." };
  const status = $("job-status");
  status.className = `status ${job.status}`;
  if (job.status !== "running" || !status.textContent.endsWith("…")) status.textContent = `${words[job.status] || job.status}${job.error && job.status === "failed" ? ` ${job.error}` : ""}`;
  $("cancel").hidden = ["done", "failed", "cancelled", "interrupted"].includes(job.status);
  $("cancel").disabled = false;
}

function finished(job) {
  if (!current || current.id !== job.id) return;
  setStatus(job);
  if (job.status !== "done") return;
  const video = $("video");
  const track = (kind, file, label) => Object.assign(document.createElement("track"), { kind, label, srclang: "en", src: withToken(`/api/jobs/${job.id}/lesson/${file}`) });
  const captions = track("captions", "lesson.vtt", "Narration");
  captions.default = true;
  video.append(captions, track("chapters", "chapters.vtt", "Scenes"));
  video.src = withToken(`/api/jobs/${job.id}/video`);
  video.load();
  $("download-video").href = withToken(`/api/jobs/${job.id}/video`);
  $("download-srt").href = withToken(`/api/jobs/${job.id}/lesson/lesson.srt`);
  $("download-vtt").href = withToken(`/api/jobs/${job.id}/lesson/lesson.vtt`);
  $("download-board").href = withToken(`/api/jobs/${job.id}/lesson/storyboard.json`);
  $("result").hidden = false;
}

$("ask").addEventListener("submit", submit);
$("plan").addEventListener("click", plan);
$("topic").addEventListener("change", () => { board = null; $("board-section").hidden = true; });
$("cancel").addEventListener("click", async () => {
  if (!current) return;
  $("cancel").disabled = true;
  $("job-status").textContent = "Cancelling… (the scene being made ends first)";
  try {
    setStatus(await api(`/api/jobs/${current.id}/cancel`, { method: "POST" }));
  } catch (error) {
    showError(`Could not cancel: ${error.message}`);
  }
});
loadOptions().catch((error) => showError(error.message));
