"""
Imports a glTF camera export with Blender's own glTF importer and prints, as one JSON line, the
camera Blender built at the frames asked for: world position, the camera's view and up
directions, and the vertical field of view. Directions and positions are given back in glTF
axes (+Y up) so the test compares them with the studio's poses without Blender's Z-up in the way.

    blender --background --factory-startup --python read-gltf-camera.py -- FILE.glb FPS FRAME...

FRAME is an export frame index (time = FRAME / FPS seconds).
"""
import json
import sys

import bpy
from mathutils import Vector

args = sys.argv[sys.argv.index("--") + 1:]
path, fps, frames = args[0], int(args[1]), [int(f) for f in args[2:]]

scene = bpy.context.scene
# --factory-startup's scene has its own camera, cube and light: only the import may be there.
for obj in list(scene.objects):
    bpy.data.objects.remove(obj, do_unlink=True)
# The importer turns glTF seconds into frames at the scene's rate: make it the export's rate so a
# glTF frame index is a whole Blender frame.
scene.render.fps = fps
scene.render.fps_base = 1
bpy.ops.import_scene.gltf(filepath=path)

cameras = [o for o in scene.objects if o.type == "CAMERA"]
if len(cameras) != 1:
    raise SystemExit(f"expected one camera, found {len(cameras)}")
camera = cameras[0]

# Where glTF time 0 landed on Blender's timeline: the first key of the camera's action (or of its
# parent's, should the importer have put the animation on a parent).
animated = camera if camera.animation_data else camera.parent
action = animated.animation_data.action if animated and animated.animation_data else None
if action is None:
    raise SystemExit("the camera has no animation")
first_key = min(p.co[0] for c in action.fcurves for p in c.keyframe_points)


def to_gltf(v):
    # Blender (+Z up) to glTF (+Y up): the inverse of the importer's (x, y, z) -> (x, -z, y).
    return [v[0], v[2], -v[1]]


out = {"firstKey": first_key, "frames": []}
for index in frames:
    scene.frame_set(int(round(first_key)) + index)
    m = camera.matrix_world
    rotation = m.to_3x3()
    view = rotation @ Vector((0.0, 0.0, -1.0))
    up = rotation @ Vector((0.0, 1.0, 0.0))
    out["frames"].append(
        {
            "frame": index,
            "position": to_gltf(m.translation),
            "view": to_gltf(view.normalized()),
            "up": to_gltf(up.normalized()),
            "angleY": camera.data.angle_y,
            "lens": camera.data.lens,
            "sensorFit": camera.data.sensor_fit,
        }
    )
print("CAMERA_JSON " + json.dumps(out))
