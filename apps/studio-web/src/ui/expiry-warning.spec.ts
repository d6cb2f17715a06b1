import { expiryWarningText } from './expiry-warning';

describe(expiryWarningText.name, () => {
  it('says how long is left, in minutes down to one, then in seconds', () => {
    expect(expiryWarningText(300)).toMatch(/^This session ends in about 5 minutes\./);
    expect(expiryWarningText(100)).toMatch(/^This session ends in about 2 minutes\./);
    expect(expiryWarningText(60)).toMatch(/^This session ends in about a minute\./);
    expect(expiryWarningText(42.4)).toMatch(/^This session ends in 42 seconds\./);
    expect(expiryWarningText(-1)).toMatch(/^This session ends in 0 seconds\./);
  });

  it('says what happens to a take and a render still running', () => {
    expect(expiryWarningText(300)).toContain(
      'A take still recording then is finished and handed to the page; a render still running is stopped.',
    );
  });
});
