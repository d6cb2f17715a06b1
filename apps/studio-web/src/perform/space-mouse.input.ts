import { MathUtils } from 'three';
import type { CameraRig } from '../viewport/camera-rig';
import type { PerformActions } from './perform-actions';

/** Logitech (older 3Dconnexion devices) and 3Dconnexion's own vendor id. */
export const SPACE_MOUSE_FILTERS: HIDDeviceFilter[] = [{ vendorId: 0x046d }, { vendorId: 0x256f }];

/** Raw axis values run to about ±350 on every SpaceMouse model. */
const AXIS_RANGE = 350;
const DEADZONE = 0.04;
const TURN_RATE = MathUtils.degToRad(90);
const ROLL_RATE = 45;
/** If the device goes quiet (unplugged mid-push), stop rather than drift forever. */
const STALE_MS = 250;

export interface SpaceMouseStatus {
  supported: boolean;
  connected: boolean;
  name: string | null;
}

/**
 * A 6-DoF "3D mouse" over WebHID. Reports: id 1 carries translation (x, y, z as int16 LE) —
 * or, on newer devices, translation and rotation together in 12 bytes; id 2 carries rotation
 * (rx, ry, rz); id 3 the buttons. The cap's axes map onto the rig as a camera operator expects:
 * push to move, tilt to look, twist to pan, side-tilt to roll.
 */
export class SpaceMouseInput {
  private device: HIDDevice | null = null;
  private readonly translation = [0, 0, 0];
  private readonly rotation = [0, 0, 0];
  private lastReportAt = 0;
  private buttons = 0;

  constructor(
    private readonly rig: CameraRig,
    private readonly actions: PerformActions,
    private readonly onStatus: (status: SpaceMouseStatus) => void,
  ) {}

  static get supported(): boolean {
    return typeof navigator !== 'undefined' && navigator.hid !== undefined;
  }

  get status(): SpaceMouseStatus {
    return { supported: SpaceMouseInput.supported, connected: this.device !== null, name: this.device?.productName || null };
  }

  /** Must run inside a user gesture (the button's click): the browser shows its chooser. */
  async connect(): Promise<void> {
    const hid = navigator.hid;
    if (!hid) throw new Error('WebHID is not available in this browser.');
    const [device] = await hid.requestDevice({ filters: SPACE_MOUSE_FILTERS });
    if (!device) return;
    await this.use(device);
  }

  /** Reopens a device the user already granted to this origin (no chooser needed). */
  async reconnectGranted(): Promise<void> {
    const hid = navigator.hid;
    if (!hid || this.device) return;
    try {
      const devices = await hid.getDevices();
      const known = devices.find((d) => SPACE_MOUSE_FILTERS.some((f) => f.vendorId === d.vendorId));
      if (known) await this.use(known);
    } catch {
      // Permissions Policy may deny WebHID in this frame; the button then explains on click.
    }
  }

  async disconnect(): Promise<void> {
    const device = this.device;
    this.device = null;
    if (device) {
      device.removeEventListener('inputreport', this.onReport);
      await device.close().catch(() => undefined);
    }
    this.onStatus(this.status);
  }

  poll(dt: number): void {
    if (!this.device || dt === 0) return;
    if (performance.now() - this.lastReportAt > STALE_MS) return;
    const [tx, ty, tz] = this.translation.map(normalize);
    const [rx, ry, rz] = this.rotation.map(normalize);
    const step = this.rig.moveSpeed * dt;
    this.rig.move(-ty * step, tx * step, -tz * step);
    const turn = TURN_RATE * dt;
    this.rig.turn(-rz * turn, -rx * turn);
    if (ry !== 0) this.rig.setRollDeg(this.rig.rollDeg + ry * ROLL_RATE * dt);
  }

  private async use(device: HIDDevice): Promise<void> {
    if (!device.opened) await device.open();
    this.device = device;
    device.addEventListener('inputreport', this.onReport);
    this.onStatus(this.status);
  }

  private readonly onReport = (event: HIDInputReportEvent): void => {
    const data = event.data;
    const int16 = (offset: number) => (data.byteLength >= offset + 2 ? data.getInt16(offset, true) : 0);
    switch (event.reportId) {
      case 1:
        this.translation[0] = int16(0);
        this.translation[1] = int16(2);
        this.translation[2] = int16(4);
        if (data.byteLength >= 12) {
          this.rotation[0] = int16(6);
          this.rotation[1] = int16(8);
          this.rotation[2] = int16(10);
        }
        break;
      case 2:
        this.rotation[0] = int16(0);
        this.rotation[1] = int16(2);
        this.rotation[2] = int16(4);
        break;
      case 3: {
        const next = data.byteLength > 0 ? data.getUint8(0) : 0;
        const pressed = next & ~this.buttons;
        if (pressed & 1) this.actions.toggleNavigation();
        if (pressed & 2) this.actions.dropMarker();
        this.buttons = next;
        break;
      }
      default:
        return;
    }
    this.lastReportAt = performance.now();
  };
}

function normalize(raw: number): number {
  const v = MathUtils.clamp(raw / AXIS_RANGE, -1, 1);
  return Math.abs(v) < DEADZONE ? 0 : v;
}
