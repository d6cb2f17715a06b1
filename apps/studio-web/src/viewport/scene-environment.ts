import {
  AmbientLight,
  BackSide,
  Color,
  DirectionalLight,
  Fog,
  Group,
  Mesh,
  ShaderMaterial,
  SphereGeometry,
  Vector3,
  type Scene,
} from 'three';
import type { SceneSpec } from '../api/studio-api.types';

const SKY_VERTEX = /* glsl */ `
varying vec3 vDirection;
void main() {
  vDirection = normalize(position);
  vec4 p = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  // Pinned just inside the far plane: the dome never hides geometry, whatever its size.
  gl_Position = vec4(p.xy, p.w * 0.999999, p.w);
}`;

const SKY_FRAGMENT = /* glsl */ `
uniform vec3 topColor;
uniform vec3 horizonColor;
uniform vec3 groundColor;
varying vec3 vDirection;
void main() {
  float y = normalize(vDirection).y;
  vec3 sky = mix(horizonColor, topColor, pow(smoothstep(0.0, 1.0, max(y, 0.0)), 0.6));
  vec3 color = y >= 0.0 ? sky : mix(horizonColor, groundColor, smoothstep(0.0, 0.25, -y));
  gl_FragColor = vec4(color, 1.0);
  #include <tonemapping_fragment>
  #include <colorspace_fragment>
}`;

/** The sky, fog and lights of one scene version, built from its spec (glTF core has none). */
export class SceneEnvironment {
  readonly group = new Group();
  private readonly sky: Mesh<SphereGeometry, ShaderMaterial>;
  private readonly sun: DirectionalLight;
  readonly fog: Fog | null;

  constructor(spec: SceneSpec, sceneRadius: number) {
    this.group.name = 'studio-environment';
    const top = new Color(spec.sky.top);
    const horizon = new Color(spec.sky.horizon);
    // Tone mapped like the geometry: fogged distance then meets the horizon without a seam.
    this.sky = new Mesh(
      new SphereGeometry(1, 32, 16),
      new ShaderMaterial({
        uniforms: {
          topColor: { value: top },
          horizonColor: { value: horizon },
          groundColor: { value: horizon.clone().multiplyScalar(0.55) },
        },
        vertexShader: SKY_VERTEX,
        fragmentShader: SKY_FRAGMENT,
        side: BackSide,
        depthWrite: false,
        fog: false,
      }),
    );
    this.sky.name = 'studio-sky';
    this.sky.frustumCulled = false;
    this.sky.renderOrder = -1;
    this.group.add(this.sky);

    const { sun, ambient } = spec.lighting;
    this.sun = new DirectionalLight(new Color(sun.color), sun.intensity);
    const dir = new Vector3(...sun.direction);
    if (dir.lengthSq() === 0) dir.set(0.3, 1, 0.2);
    this.sun.position.copy(dir.normalize().multiplyScalar(Math.max(sceneRadius, 10) * 2));
    this.group.add(this.sun, this.sun.target);
    this.group.add(new AmbientLight(new Color(ambient.color), ambient.intensity));

    this.fog = spec.fog ? new Fog(new Color(spec.fog.color), spec.fog.near, spec.fog.far) : null;
  }

  attach(scene: Scene): void {
    scene.add(this.group);
    scene.fog = this.fog;
    scene.background = null;
  }

  detach(scene: Scene): void {
    scene.remove(this.group);
    if (scene.fog === this.fog) scene.fog = null;
  }

  /** The dome follows the camera, so its size only has to fit inside the far plane. */
  follow(cameraPosition: Vector3, far: number): void {
    this.sky.position.copy(cameraPosition);
    this.sky.scale.setScalar(far * 0.5);
  }

  dispose(): void {
    this.sky.geometry.dispose();
    this.sky.material.dispose();
    this.sun.dispose();
  }
}
