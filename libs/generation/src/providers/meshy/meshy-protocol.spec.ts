import { GenerationError } from '../../scene-generator';
import { SceneView } from '@scene-studio/world-engine';
import { providerView } from '../provider-view';
import {
  createdTaskId,
  MESHY_PROMPT_MAX,
  meshyPrompt,
  overallProgress,
  parseJobState,
  parseTask,
  taskPath,
  taskStatus,
  truncateOnWord,
} from './meshy-protocol';

const chars = (s: string) => Array.from(s).length;

describe(truncateOnWord.name, () => {
  it('leaves a text within the limit exactly as it is', () => {
    expect(truncateOnWord('a  red\nfox', 10)).toBe('a  red\nfox');
    expect(truncateOnWord('x'.repeat(600), 600)).toBe('x'.repeat(600));
  });

  it('cuts at the last word boundary, without trailing punctuation', () => {
    expect(truncateOnWord('a castle on a hill, with towers', 20)).toBe('a castle on a hill');
    expect(truncateOnWord('one two three', 7)).toBe('one two');
  });

  it('collapses whitespace before cutting, which may make the text fit', () => {
    expect(truncateOnWord('a    castle', 8)).toBe('a castle');
  });

  it('cuts mid-word when the only boundary would lose more than half', () => {
    expect(truncateOnWord('a supercalifragilistic', 10)).toBe('a supercal');
  });

  it('counts code points and never splits a surrogate pair', () => {
    const out = truncateOnWord('🦊'.repeat(700), 600);
    expect(chars(out)).toBe(600);
    expect(out).toBe('🦊'.repeat(600));
  });
});

describe(meshyPrompt.name, () => {
  const view = (instructions: string[]): SceneView => ({
    ...providerView({ prompt: 'p', bounds: null, edits: [] }),
    edits: instructions.map((instruction, i) => ({ version: i + 2, instruction, changes: ['regenerated'] })),
  });

  it('sends a creation prompt cut to 600 characters on a word boundary', () => {
    const prompt = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
    const out = meshyPrompt({ prompt, edit: null });
    expect(chars(out)).toBeLessThanOrEqual(MESHY_PROMPT_MAX);
    expect(prompt.startsWith(out)).toBe(true);
    expect(prompt[out.length]).toBe(' ');
  });

  it('sends promptWithEdits unchanged when it fits', () => {
    const out = meshyPrompt({ prompt: 'a red fox', edit: { previous: view(['make it sit']), instruction: 'add a hat' } });
    expect(out).toBe('a red fox\nChange: make it sit\nChange: add a hat');
  });

  it('keeps the newest instruction, then the prompt, then older ones that fit, when the whole is too long', () => {
    const prompt = `a fox ${'with a very bushy tail '.repeat(20)}`;
    const older = ['make it sit', 'x'.repeat(250), 'turn it blue'];
    const out = meshyPrompt({ prompt, edit: { previous: view(older), instruction: 'add a tiny hat' } });
    expect(chars(out)).toBeLessThanOrEqual(MESHY_PROMPT_MAX);
    const lines = out.split('\n');
    expect(lines[lines.length - 1]).toBe('Change: add a tiny hat');
    expect(lines[0].startsWith('a fox with a very bushy tail')).toBe(true);
    // The newer older one fits; the long one does not, and the search stops there (no gaps).
    expect(lines).toContain('Change: turn it blue');
    expect(out).not.toContain('x'.repeat(250));
    expect(out).not.toContain('make it sit');
  });

  it('fits older instructions newest first, stopping at the first that does not fit', () => {
    const out = meshyPrompt({ prompt: 'a fox', edit: { previous: view(['first', 'y'.repeat(40), 'third']), instruction: 'fourth' } }, 60);
    expect(out).toBe('a fox\nChange: third\nChange: fourth');
  });

  it('gives a huge newest instruction at most half the room, so the prompt keeps its subject', () => {
    const out = meshyPrompt({ prompt: 'a lighthouse on a cliff', edit: { previous: view([]), instruction: 'z '.repeat(800) } });
    expect(chars(out)).toBeLessThanOrEqual(MESHY_PROMPT_MAX);
    expect(out.startsWith('a lighthouse on a cliff\nChange: z z')).toBe(true);
  });
});

describe(overallProgress.name, () => {
  it.each([
    [{ phase: 'preview', refine: true } as const, 0, 0],
    [{ phase: 'preview', refine: true } as const, 50, 0.25],
    [{ phase: 'preview', refine: true } as const, 100, 0.5],
    [{ phase: 'refine', previewId: 'p1' } as const, 0, 0.5],
    [{ phase: 'refine', previewId: 'p1' } as const, 40, 0.7],
    [{ phase: 'refine', previewId: 'p1' } as const, 100, 1],
    [{ phase: 'preview', refine: false } as const, 40, 0.4],
    [{ phase: 'image' } as const, 99, 0.99],
    [{ phase: 'image' } as const, 250, 1],
    [{ phase: 'image' } as const, -5, 0],
  ])('%j at %d%% → %d', (state, percent, expected) => {
    expect(overallProgress(state, percent)).toBeCloseTo(expected, 10);
  });

  it('is unknown (null) when Meshy sends no number', () => {
    expect(overallProgress({ phase: 'image' }, undefined)).toBeNull();
    expect(overallProgress({ phase: 'image' }, '50')).toBeNull();
    expect(overallProgress({ phase: 'image' }, Number.NaN)).toBeNull();
  });
});

describe(taskStatus.name, () => {
  it.each([
    ['PENDING', 'running'],
    ['IN_PROGRESS', 'running'],
    ['SUCCEEDED', 'succeeded'],
    ['FAILED', 'failed'],
    ['CANCELED', 'failed'],
    ['EXPIRED', 'failed'],
    ['QUEUED_SOMEWHERE_NEW', 'running'],
    [undefined, 'running'],
  ])('%s → %s', (status, expected) => {
    expect(taskStatus(status)).toBe(expected);
  });
});

describe(parseJobState.name, () => {
  it('reads each state the adapter writes', () => {
    expect(parseJobState({ id: 't1', state: { phase: 'preview', refine: true } })).toEqual({ phase: 'preview', refine: true });
    expect(parseJobState({ id: 't2', state: { phase: 'refine', previewId: 't1' } })).toEqual({ phase: 'refine', previewId: 't1' });
    expect(parseJobState({ id: 't3', state: { phase: 'image' } })).toEqual({ phase: 'image' });
  });

  it.each([
    [{ id: 't1' }],
    [{ id: 't1', state: { phase: 'preview' } }],
    [{ id: 't1', state: { phase: 'refine' } }],
    [{ id: 't1', state: { phase: 'refine', previewId: '../x' } }],
    [{ id: 't1', state: { phase: 'texture' } }],
    [{ id: '', state: { phase: 'image' } }],
    [{ id: 'a/b', state: { phase: 'image' } }],
  ])('refuses %j as generation_failed', (job) => {
    expect(() => parseJobState(job)).toThrow(GenerationError);
    expect(() => parseJobState(job)).toThrow(expect.objectContaining({ code: 'generation_failed', retryable: false }));
  });
});

describe(taskPath.name, () => {
  it('reads preview and refine tasks under text-to-3d v2 and image tasks under image-to-3d v1', () => {
    expect(taskPath({ phase: 'preview', refine: true }, 'a')).toBe('/openapi/v2/text-to-3d/a');
    expect(taskPath({ phase: 'refine', previewId: 'a' }, 'b')).toBe('/openapi/v2/text-to-3d/b');
    expect(taskPath({ phase: 'image' }, 'c:1')).toBe('/openapi/v1/image-to-3d/c%3A1');
  });
});

describe(parseTask.name, () => {
  it('reads the GLB and thumbnail URLs, treating empty strings as absent', () => {
    expect(parseTask({ status: 'SUCCEEDED', progress: 100, model_urls: { glb: 'https://a/m.glb' }, thumbnail_url: '' })).toEqual({
      status: 'SUCCEEDED',
      progress: 100,
      glbUrl: 'https://a/m.glb',
      thumbnailUrl: null,
    });
    expect(parseTask({ status: 'PENDING', model_urls: null })).toMatchObject({ glbUrl: null, thumbnailUrl: null });
  });

  it('refuses an answer that is not an object', () => {
    expect(() => parseTask(['SUCCEEDED'])).toThrow(expect.objectContaining({ code: 'generation_failed' }));
    expect(() => parseTask(null)).toThrow(expect.objectContaining({ code: 'generation_failed' }));
  });
});

describe(createdTaskId.name, () => {
  it('reads the id from a create answer', () => {
    expect(createdTaskId({ result: '018a210d-8ba4-705c-b111-1f1776f7f578' })).toBe('018a210d-8ba4-705c-b111-1f1776f7f578');
  });

  it.each([[{}], [{ result: 42 }], [{ result: '' }], [{ result: 'x'.repeat(129) }], [null]])('refuses %j', (body) => {
    expect(() => createdTaskId(body)).toThrow(expect.objectContaining({ code: 'generation_failed' }));
  });
});
