import {
  DISPLAY_NAME_MAX,
  displayName,
  imageUploadType,
  operationCost,
  operationProgress,
  pickSplatUrl,
  splatCount,
  uploadFileName,
  uploadHeaders,
  worldTags,
  worldTransform,
} from './worldlabs-protocol';

const codePoints = (s: string) => Array.from(s).length;

describe(displayName.name, () => {
  it('keeps a short prompt as it is, on one line', () => {
    expect(displayName('A lighthouse\non a cliff\t at dusk', 1)).toBe('A lighthouse on a cliff at dusk');
  });

  it('marks the version of an edit', () => {
    expect(displayName('A lighthouse', 3)).toBe('A lighthouse · v3');
  });

  it('cuts a long prompt on a word boundary within 64 code points, suffix included', () => {
    const prompt = 'An abandoned amusement park overgrown with ivy, a rusted ferris wheel against a stormy violet sky';
    for (const version of [1, 12]) {
      const name = displayName(prompt, version);
      expect(codePoints(name)).toBeLessThanOrEqual(DISPLAY_NAME_MAX);
      expect(name).toMatch(version === 1 ? /^An abandoned amusement park .*\w…$/ : /\w… · v12$/);
      expect(prompt.startsWith(name.split('…')[0])).toBe(true);
    }
  });

  it('cuts a prompt without spaces mid-word rather than emptying it', () => {
    const name = displayName('x'.repeat(200), 1);
    expect(name).toBe(`${'x'.repeat(DISPLAY_NAME_MAX - 1)}…`);
  });

  it('counts code points, never splitting a surrogate pair', () => {
    const name = displayName('🌋'.repeat(100), 1);
    expect(codePoints(name)).toBe(DISPLAY_NAME_MAX);
    expect(
      Array.from(name)
        .slice(0, -1)
        .every((c) => c === '🌋'),
    ).toBe(true);
  });

  it('names a blank prompt', () => {
    expect(displayName(' \n ', 1)).toBe('Scene Studio scene');
  });
});

describe(worldTags.name, () => {
  it('tags the scene and the operation so an operator can find the world', () => {
    const opId = 'op_01JD3Z8Q4W6K2M9T5X7B1C0VHE';
    expect(opId).toHaveLength(29);
    expect(worldTags({ sceneId: 'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHF', idempotencyKey: opId })).toEqual([
      'scene-studio',
      'scn_01JD3Z8Q4W6K2M9T5X7B1C0VHF',
      opId,
    ]);
  });

  it('leaves out a value over 32 characters rather than sending a cut id', () => {
    expect(worldTags({ sceneId: 'scn_1', idempotencyKey: 'k'.repeat(33) })).toEqual(['scene-studio', 'scn_1']);
  });
});

describe(operationProgress.name, () => {
  it.each([
    [{ progress_percentage: 0 }, 0],
    [{ progress_percentage: 42 }, 0.42],
    [{ progress_percentage: 100 }, 1],
    [{ progress: 25 }, 0.25],
    [{ progress_percentage: '60' }, 0.6],
    [{ progress_percentage: 140 }, 1],
    [{ progress_percentage: -3 }, 0],
    [{ progress_percentage: null, progress: 10 }, 0.1],
  ])('%j → %d', (metadata, expected) => {
    expect(operationProgress(metadata)).toBeCloseTo(expected, 10);
  });

  it.each([[null], [undefined], [{}], [{ world_id: 'w' }], [{ progress_percentage: 'soon' }], [{ progress: NaN }], ['50'], [[50]]])(
    '%j → null',
    (metadata) => {
      expect(operationProgress(metadata)).toBeNull();
    },
  );
});

describe(splatCount.name, () => {
  it.each([
    ['100k', 100_000],
    ['150k', 150_000],
    ['500k', 500_000],
    ['2m', 2_000_000],
    ['1.5M', 1_500_000],
    ['full_res', 2_000_000],
    ['250000', 250_000],
  ])('%s → %d', (key, count) => {
    expect(splatCount(key)).toBe(count);
  });

  it.each([['hq'], [''], ['0k'], ['-5k']])('%j → null', (key) => {
    expect(splatCount(key)).toBeNull();
  });
});

describe(pickSplatUrl.name, () => {
  const all = { '100k': 'https://cdn/100k.spz', '500k': 'https://cdn/500k.spz', full_res: 'https://cdn/full.spz' };

  it('takes the configured resolution when Marble has it', () => {
    expect(pickSplatUrl(all, '100k')).toEqual({ resolution: '100k', url: 'https://cdn/100k.spz' });
    expect(pickSplatUrl(all, 'full_res')).toEqual({ resolution: 'full_res', url: 'https://cdn/full.spz' });
  });

  it('falls back to the nearest resolution by splat count on a log scale', () => {
    const { '500k': _, ...without500k } = all;
    expect(pickSplatUrl(without500k, '500k')?.resolution).toBe('full_res'); // ×4 is nearer than ÷5
    expect(pickSplatUrl({ '100k': 'a', '500k': 'b' }, 'full_res')?.resolution).toBe('500k');
    expect(pickSplatUrl({ '150k': 'a', full_res: 'b' }, '100k')?.resolution).toBe('150k');
  });

  it('prefers the smaller of two equally near resolutions', () => {
    expect(pickSplatUrl({ '1000k': 'big', '250k': 'small' }, '500k')?.resolution).toBe('250k');
  });

  it('uses a key it cannot place only when nothing else is there', () => {
    expect(pickSplatUrl({ hq: 'odd', '100k': 'a' }, '500k')?.resolution).toBe('100k');
    expect(pickSplatUrl({ hq: 'odd' }, '500k')).toEqual({ resolution: 'hq', url: 'odd' });
  });

  it('ignores entries that are not URLs and answers null without any splat', () => {
    expect(pickSplatUrl({ '500k': null, '100k': 42, full_res: '' }, '500k')).toBeNull();
    expect(pickSplatUrl({}, '500k')).toBeNull();
  });
});

describe(worldTransform.name, () => {
  it('reads metric scale and ground offset, in Marble’s raw (OpenCV) frame', () => {
    expect(worldTransform({ metric_scale_factor: 1.23, ground_plane_offset: 0.42 })).toEqual({
      metricScale: 1.23,
      groundOffset: 0.42,
      frame: 'opencv',
    });
  });

  it('takes the identity for a value missing or out of range, and keeps the frame without any metadata', () => {
    expect(worldTransform({ metric_scale_factor: 2 })).toEqual({ metricScale: 2, groundOffset: 0, frame: 'opencv' });
    expect(worldTransform({ metric_scale_factor: -1, ground_plane_offset: 0.5 })).toEqual({
      metricScale: 1,
      groundOffset: 0.5,
      frame: 'opencv',
    });
    const identity = { metricScale: 1, groundOffset: 0, frame: 'opencv' };
    expect(worldTransform({ metric_scale_factor: 'big', ground_plane_offset: Infinity })).toEqual(identity);
    expect(worldTransform(null)).toEqual(identity);
    expect(worldTransform({})).toEqual(identity);
  });
});

describe(uploadHeaders.name, () => {
  it('sends every required header, lower-cased, with our Content-Type unless Marble names its own', () => {
    expect(uploadHeaders({ 'X-Goog-Content-Length-Range': '0,104857600' }, 'image/png')).toEqual({
      'content-type': 'image/png',
      'x-goog-content-length-range': '0,104857600',
    });
    expect(uploadHeaders({ 'Content-Type': 'application/octet-stream' }, 'image/png')).toEqual({
      'content-type': 'application/octet-stream',
    });
    expect(uploadHeaders(null, 'image/jpeg')).toEqual({ 'content-type': 'image/jpeg' });
  });

  it('leaves framing headers to fetch', () => {
    expect(uploadHeaders({ 'Content-Length': '12', Host: 'elsewhere' }, 'image/png')).toEqual({ 'content-type': 'image/png' });
  });

  it.each([[['x']], ['x'], [{ 'x-a': 1 }], [{ 'bad name': 'v' }], [{ 'x-a': 'v\r\nx-injected: 1' }]])('refuses %j', (required) => {
    expect(uploadHeaders(required, 'image/png')).toBeNull();
  });
});

describe(imageUploadType.name, () => {
  it('maps our formats to Marble extensions and MIME types', () => {
    expect(imageUploadType('jpeg')).toEqual({ extension: 'jpg', contentType: 'image/jpeg' });
    expect(imageUploadType('png')).toEqual({ extension: 'png', contentType: 'image/png' });
    expect(imageUploadType('webp')).toEqual({ extension: 'webp', contentType: 'image/webp' });
  });
});

describe(uploadFileName.name, () => {
  it('stays within Marble’s 64 characters', () => {
    expect(uploadFileName('scn_01JD3Z8Q4W6K2M9T5X7B1C0VHF', 2, 'webp')).toBe('scn_01JD3Z8Q4W6K2M9T5X7B1C0VHF-v2-source.webp');
    expect(uploadFileName('s'.repeat(60), 1, 'png')).toBe('source.png');
  });
});

describe(operationCost.name, () => {
  it('reads cost.total_credits, a non-negative number, and nothing else', () => {
    expect(operationCost({ cost: { total_credits: 1500, line_items: [] } })).toBe(1500);
    expect(operationCost({ cost: { total_credits: 0 } })).toBe(0);
    for (const odd of [
      { cost: null },
      {},
      null,
      { cost: { total_credits: '1500' } },
      { cost: { total_credits: -1 } },
      { cost: { total_credits: Infinity } },
    ]) {
      expect(operationCost(odd)).toBeUndefined();
    }
  });
});
