// First import: takes the secret out of the address bar before any other module runs.
import { takeSessionSecret } from './boot/session-secret';
import { installDebugHook } from './debug/debug-hook';
import { StudioPage } from './studio/studio-page';
// One stylesheet per feature, in cascade order; Vite joins them into one external CSS file.
import './styles/base.css';
import './styles/shell.css';
import './styles/controls.css';
import './styles/status.css';
import './styles/viewport.css';
import './styles/panel.css';
import './styles/perform.css';
import './styles/render.css';
import './styles/framing.css';
import './styles/timeline.css';
import './styles/edit.css';
import './styles/inspect.css';
import './styles/help.css';
import './styles/state-screens.css';
import './styles/motion.css';

const root = document.getElementById('studio-root') ?? document.body;
const page = new StudioPage(root, takeSessionSecret());
// The tests' window on the page, in test builds only (`vite build --mode test`, which the browser
// tests serve): Vite writes MODE in as a constant, so a production build drops the branch and,
// with it, the whole debug/ folder (scripts/check-bundle-budget.js checks that it did).
if (import.meta.env.MODE === 'test') installDebugHook(page);
page.start();
