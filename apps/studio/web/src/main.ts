// First import: takes the secret out of the address bar before any other module runs.
import { takeSessionSecret } from './boot/session-secret';
import { installDebugHook } from './debug/debug-hook';
import { StudioApp } from './studio/studio.app';
import './styles/studio.css';

const root = document.getElementById('studio-root') ?? document.body;
const app = new StudioApp(root, takeSessionSecret());
installDebugHook(app);
app.start();
