import { renderProblemPage } from './problem-pages';

describe(renderProblemPage.name, () => {
  const sut = renderProblemPage;

  it('escapes the texts and shows inline code of the action as code', () => {
    const html = sut({ type: 'x', code: 'a<b', status: 422, title: 'T & "q"', action: 'Send `Idempotency-Key` <now>.' });
    expect(html).toContain('<h1>T &#38; &#34;q&#34;</h1>');
    expect(html).toContain('<code>a&#60;b</code>');
    expect(html).toContain('<p>Send <code>Idempotency-Key</code> &#60;now&#62;.</p>');
    expect(html).not.toContain('<now>');
  });
});
