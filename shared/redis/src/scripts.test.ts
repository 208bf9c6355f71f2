import { expect } from 'chai';
import { loadScripts, parseScriptFileName } from './scripts.ts';

describe('redis scripts loader', () => {
  it('infers the name and key count from the file name', () => {
    expect(parseScriptFileName('fixed-window-1.lua')).to.deep.equal({
      name: 'fixed-window',
      numberOfKeys: 1,
    });
    expect(parseScriptFileName('move-to-delayed-12.lua')).to.deep.equal({
      name: 'move-to-delayed',
      numberOfKeys: 12,
    });
    expect(parseScriptFileName('fixed-window.lua')).to.equal(null);
    expect(parseScriptFileName('Fixed-Window-1.lua')).to.equal(null);
  });

  it('loads every script once, with a camelCase command name', () => {
    const scripts = loadScripts();
    expect(loadScripts()).to.equal(scripts);
    expect(scripts.get('fixed-window')).to.deep.include({ commandName: 'fixedWindow', numberOfKeys: 1 });
  });

  it('documents KEYS, ARGV and the return value in every script header', () => {
    for (const script of loadScripts().values()) {
      const header = script.lua.slice(0, script.lua.indexOf(']]'));
      const keys = Array.from({ length: script.numberOfKeys }, (_, i) => `KEYS[${i + 1}]`);
      for (const word of [...keys, 'ARGV', 'Returns'])
        expect(header, `${script.name} header`).to.contain(word);
    }
  });
});
