import {
  DepthTexture,
  HalfFloatType,
  Mesh,
  OrthographicCamera,
  PlaneGeometry,
  Scene,
  ShaderMaterial,
  Vector2,
  WebGLRenderTarget,
  type PerspectiveCamera,
  type WebGLRenderer,
} from 'three';

export interface LensSettings {
  focalLengthMm: number;
  fNumber: number;
  focusDistanceM: number;
  /** Blur by the circle of confusion (depth of field); off, the picture stays sharp. */
  blur?: boolean;
  /** Tint what lies within the depth of field (a circle of confusion under about a pixel). */
  focusAid?: boolean;
}

const VERTEX = /* glsl */ `
varying vec2 vUv;
void main() {
  vUv = uv;
  gl_Position = vec4(position.xy, 0.0, 1.0);
}`;

/*
 * A single-pass gather depth of field after Dennis Gustafsson's "Bokeh depth of field in a
 * single pass": a golden-angle spiral of taps whose reach is each pixel's circle of confusion,
 * computed from the thin-lens formula with the real focal length, f-number and focus distance.
 * Background taps are limited to twice the centre's blur, so sharp subjects do not bleed.
 */
const FRAGMENT = /* glsl */ `
#include <packing>
uniform sampler2D tColor;
uniform sampler2D tDepth;
uniform vec2 resolution;
uniform float cameraNear;
uniform float cameraFar;
uniform float focalLength;
uniform float fNumber;
uniform float focusDistance;
uniform float filmWidth;
uniform float maxBlur;
uniform float blurOn;
uniform float focusAid;
varying vec2 vUv;

const float GOLDEN_ANGLE = 2.39996323;
const float RAD_SCALE = 2.0;

float viewDistance(vec2 uv) {
  return -perspectiveDepthToViewZ(texture2D(tDepth, uv).x, cameraNear, cameraFar);
}

float cocPixelsUnclamped(float distance) {
  float s = max(focusDistance, focalLength * 1.01);
  float c = focalLength * focalLength * abs(distance - s) / (fNumber * distance * (s - focalLength));
  return 0.5 * c / filmWidth * resolution.x;
}

float cocPixels(float distance) {
  return min(cocPixelsUnclamped(distance), maxBlur);
}

void main() {
  float centerDistance = viewDistance(vUv);
  float centerSize = cocPixels(centerDistance);
  vec3 color = texture2D(tColor, vUv).rgb;
  float total = 1.0;
  vec2 pixel = 1.0 / resolution;
  float radius = RAD_SCALE;
  float angle = 0.0;
  for (int i = 0; i < 256; i++) {
    if (blurOn < 0.5 || radius >= maxBlur) break;
    vec2 uv = vUv + vec2(cos(angle), sin(angle)) * pixel * radius;
    vec3 sampleColor = texture2D(tColor, uv).rgb;
    float sampleDistance = viewDistance(uv);
    float sampleSize = cocPixels(sampleDistance);
    if (sampleDistance > centerDistance) sampleSize = clamp(sampleSize, 0.0, centerSize * 2.0);
    float m = smoothstep(radius - 0.5, radius + 0.5, sampleSize);
    color += mix(color / total, sampleColor, m);
    total += 1.0;
    radius += RAD_SCALE / radius;
    angle += GOLDEN_ANGLE;
  }
  gl_FragColor = vec4(color / total, 1.0);
  #include <tonemapping_fragment>
  #include <colorspace_fragment>
  if (focusAid > 0.5) {
    // Focus peaking: edges (local contrast in the sharp picture) within the depth of field as a
    // 1080p delivery sees it (a blur radius under about a pixel of a 1920-wide frame, whatever
    // this canvas's size) light up green, as on a camera's monitor. Flat areas (sky, walls)
    // stay untouched, so the aid shows where focus is rather than washing the frame.
    float sharp = 1.0 - smoothstep(1.0, 2.0, cocPixelsUnclamped(centerDistance) / resolution.x * 1920.0);
    vec3 w = vec3(0.2126, 0.7152, 0.0722);
    float l = dot(texture2D(tColor, vUv).rgb, w);
    float gx = dot(texture2D(tColor, vUv + vec2(pixel.x, 0.0)).rgb - texture2D(tColor, vUv - vec2(pixel.x, 0.0)).rgb, w);
    float gy = dot(texture2D(tColor, vUv + vec2(0.0, pixel.y)).rgb - texture2D(tColor, vUv - vec2(0.0, pixel.y)).rgb, w);
    float edge = smoothstep(0.08, 0.25, length(vec2(gx, gy)) / (l + 0.05));
    gl_FragColor.rgb = mix(gl_FragColor.rgb, vec3(0.2, 1.0, 0.35), 0.85 * sharp * edge);
  }
}`;

/**
 * Renders the scene into an HDR target with a depth texture, then blurs it to the screen by
 * each pixel's circle of confusion, applying tone mapping and sRGB output on the way (what the
 * renderer does by itself when rendering straight to the canvas). No EffectComposer: one
 * target and one full-screen triangle pair is all this needs. Requires WebGL 2, which three.js
 * requires anyway; the caller falls back to plain rendering if construction fails.
 */
export class DepthOfFieldPass {
  private target: WebGLRenderTarget | null = null;
  private readonly material: ShaderMaterial;
  private readonly quad: Mesh<PlaneGeometry, ShaderMaterial>;
  private readonly quadScene = new Scene();
  private readonly quadCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);
  private readonly size = new Vector2(1, 1);

  constructor() {
    this.material = new ShaderMaterial({
      uniforms: {
        tColor: { value: null },
        tDepth: { value: null },
        resolution: { value: new Vector2(1, 1) },
        cameraNear: { value: 0.1 },
        cameraFar: { value: 1000 },
        focalLength: { value: 0.05 },
        fNumber: { value: 2.8 },
        focusDistance: { value: 10 },
        filmWidth: { value: 0.036 },
        maxBlur: { value: 8 },
        blurOn: { value: 1 },
        focusAid: { value: 0 },
      },
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      depthTest: false,
      depthWrite: false,
    });
    this.quad = new Mesh(new PlaneGeometry(2, 2), this.material);
    this.quad.frustumCulled = false;
    this.quadScene.add(this.quad);
  }

  setSize(width: number, height: number): void {
    if (this.target && this.size.x === width && this.size.y === height) return;
    this.size.set(width, height);
    this.target?.dispose();
    this.target = new WebGLRenderTarget(width, height, {
      type: HalfFloatType,
      samples: 4,
      depthTexture: new DepthTexture(width, height),
    });
    const u = this.material.uniforms;
    u.tColor.value = this.target.texture;
    u.tDepth.value = this.target.depthTexture;
    (u.resolution.value as Vector2).set(width, height);
    // Blur radius cap grows with resolution so the look does not change with the frame size.
    u.maxBlur.value = Math.max(6, width * 0.012);
  }

  render(renderer: WebGLRenderer, scene: Scene, camera: PerspectiveCamera, lens: LensSettings): void {
    if (!this.target) return;
    const u = this.material.uniforms;
    u.cameraNear.value = camera.near;
    u.cameraFar.value = camera.far;
    u.focalLength.value = lens.focalLengthMm / 1000;
    u.fNumber.value = lens.fNumber;
    u.focusDistance.value = lens.focusDistanceM;
    u.filmWidth.value = camera.getFilmWidth() / 1000;
    u.blurOn.value = lens.blur === false ? 0 : 1;
    u.focusAid.value = lens.focusAid ? 1 : 0;

    renderer.setRenderTarget(this.target);
    renderer.render(scene, camera);
    renderer.setRenderTarget(null);
    renderer.render(this.quadScene, this.quadCamera);
  }

  dispose(): void {
    this.target?.depthTexture?.dispose();
    this.target?.dispose();
    this.quad.geometry.dispose();
    this.material.dispose();
  }
}
