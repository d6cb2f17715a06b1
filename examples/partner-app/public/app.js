// The partner page. It follows every rule of the product description:
// - the message listener is registered before any iframe src is set;
// - a message is accepted only from the embed origin AND this iframe's window;
// - the iframe carries the exact title, allow, referrerpolicy and sandbox attributes;
// - the embed URL comes only from our authenticated backend, and is never stored or logged.
const config = await (await fetch('/config.json')).json();

const $ = (id) => document.getElementById(id);
const status = $('status');
const openButton = $('open');
const stage = $('stage');
let sceneId = null;
let frame = null;
let embedSessionId = null;

/** Accepted studio events, for the page and for automated tests. */
window.partnerEvents = [];
/** Messages refused by the origin/source check. */
window.partnerRejected = 0;

window.addEventListener('message', (event) => {
  if (event.origin !== config.embedOrigin || !frame || event.source !== frame.contentWindow) {
    window.partnerRejected += 1;
    return;
  }
  const msg = event.data;
  if (!msg || msg.source !== 'scene-studio' || msg.version !== 1 || typeof msg.type !== 'string') return;
  window.partnerEvents.push(msg);
  const li = document.createElement('li');
  const { video, cameraPath, file, image, ...shown } = msg.payload ?? {};
  li.textContent = `${new Date().toLocaleTimeString()}  ${msg.type}  ${JSON.stringify(shown)}`;
  // A finished take or render arrives with the video and its camera path: offer both as
  // downloads here, since the studio's sandbox cannot download.
  if ((msg.type === 'recording.completed' || msg.type === 'render.completed') && video instanceof Blob) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const kind = msg.type === 'render.completed' ? 'render' : 'take';
    const extension = video.type.startsWith('video/mp4') ? 'mp4' : 'webm';
    for (const [blob, name, label] of [
      [video, `${kind}-${stamp}.${extension}`, 'video'],
      [
        new Blob([JSON.stringify(cameraPath ?? {}, null, 2)], { type: 'application/json' }),
        `${kind}-${stamp}.camera-path.json`,
        'camera path',
      ],
    ]) {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = name;
      a.textContent = ` Download ${label}`;
      li.append(a);
    }
  }
  // A camera exported for other tools (USD, glTF, Nuke, per-frame JSON) arrives as the file itself.
  if (msg.type === 'camera-path.exported' && msg.payload?.file instanceof Blob) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(msg.payload.file);
    a.download = typeof msg.payload.fileName === 'string' ? msg.payload.fileName : 'camera';
    a.textContent = ' Download camera file';
    li.append(a);
  }
  // A still of the studio's view arrives as its PNG: offer it as a download too.
  if (msg.type === 'still.completed' && image instanceof Blob) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const a = document.createElement('a');
    a.href = URL.createObjectURL(image);
    a.download = `still-${stamp}.png`;
    a.textContent = ' Download still';
    li.append(a);
  }
  // An exported camera move (the studio's timeline) arrives as its camera-path file: offer it too.
  if (msg.type === 'camera-path.exported' && cameraPath) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([JSON.stringify(cameraPath, null, 2)], { type: 'application/json' }));
    a.download = typeof msg.payload.fileName === 'string' ? msg.payload.fileName : 'camera-move.camera-path.json';
    a.textContent = ' Download camera path';
    li.append(a);
  }
  $('events').prepend(li);
  // The session ends soon: ask our backend to extend it. The studio keeps running and answers
  // with `session.extended`; if the session already ended, it says `session.ended` instead.
  if (msg.type === 'session.expiring' && embedSessionId) {
    void api(`/api/embed-sessions/${embedSessionId}/extend`, { method: 'POST' });
  }
});

async function api(path, init) {
  const res = await fetch(path, { credentials: 'same-origin', ...init });
  const body = await res.json().catch(() => ({}));
  return { res, body };
}

$('create-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const prompt = $('prompt').value;
  $('generate').disabled = true;
  openButton.disabled = true;
  status.textContent = 'Creating the scene…';
  try {
    const { res, body } = await api('/api/scenes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt }),
    });
    if (res.status !== 202) throw new Error(body.detail || body.error || `HTTP ${res.status}`);
    for (;;) {
      const poll = await api(`/api/operations/${body.operationId}`);
      if (poll.body.status === 'succeeded') {
        sceneId = poll.body.sceneId;
        status.textContent = `Scene ${sceneId} is ready (version ${poll.body.version}).`;
        openButton.disabled = false;
        break;
      }
      if (poll.body.status === 'failed') throw new Error(poll.body.error?.message || 'generation failed');
      status.textContent = 'Generating…';
      const wait = Math.min(Number(poll.res.headers.get('retry-after') || 1), 2);
      await new Promise((r) => setTimeout(r, wait * 500));
    }
  } catch (err) {
    status.textContent = `Could not create the scene: ${err.message}`;
  } finally {
    $('generate').disabled = false;
  }
});

openButton.addEventListener('click', async () => {
  const mode = $('mode').value;
  openButton.disabled = true;
  const { res, body } = await api('/api/embed-sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sceneId, mode }),
  });
  openButton.disabled = false;
  if (res.status !== 201) {
    status.textContent = `Could not open the studio: ${body.detail || body.error || res.status}`;
    return;
  }
  embedSessionId = body.embedSessionId;
  stage.hidden = false;
  stage.className = mode === 'perform' ? 'stage perform' : 'stage';
  frame = document.createElement('iframe');
  frame.title = 'Scene camera studio';
  frame.setAttribute('allow', 'gamepad; hid; fullscreen');
  frame.setAttribute('referrerpolicy', 'no-referrer');
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-pointer-lock allow-forms');
  stage.replaceChildren(frame);
  // The listener above is already registered; only now does the iframe get its address.
  frame.src = body.url;
});
