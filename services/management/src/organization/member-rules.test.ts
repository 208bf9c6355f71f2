import type { MemberRole } from '@lattice/store';
import { expect } from 'chai';
import { type Actor, changeVerdict, mayCreate, mayHandleTokensOf, mayManage } from './member-rules.ts';

const ROLES: MemberRole[] = ['owner', 'admin', 'member'];
const actor = (role: MemberRole): Actor => ({ memberId: `self-${role}`, role });

describe('member rules', () => {
  it('creating: owners any role, admins admins and members, members nobody', () => {
    const allowed = ROLES.map((by) => ROLES.filter((role) => mayCreate(actor(by), role)));
    expect(allowed).to.deep.equal([['owner', 'admin', 'member'], ['admin', 'member'], []]);
  });

  it('managing: owners everyone, admins non-owners, members nobody', () => {
    const allowed = ROLES.map((by) => ROLES.filter((role) => mayManage(actor(by), { role })));
    expect(allowed).to.deep.equal([['owner', 'admin', 'member'], ['admin', 'member'], []]);
  });

  it('tokens: one’s own always; another’s only when one may manage it', () => {
    const member = actor('member');
    expect(mayHandleTokensOf(member, { id: member.memberId, role: 'member' })).to.equal(true);
    expect(mayHandleTokensOf(member, { id: 'other', role: 'member' })).to.equal(false);
    expect(mayHandleTokensOf(actor('admin'), { id: 'other', role: 'member' })).to.equal(true);
    expect(mayHandleTokensOf(actor('admin'), { id: 'other', role: 'owner' })).to.equal(false);
    const admin = actor('admin');
    expect(mayHandleTokensOf(admin, { id: admin.memberId, role: 'admin' })).to.equal(true);
  });

  it('an admin may neither grant owner nor touch an owner', () => {
    const admin = actor('admin');
    expect(changeVerdict(admin, { id: 'm', role: 'member' }, 'admin', ['o'])).to.equal('allowed');
    expect(changeVerdict(admin, { id: 'm', role: 'member' }, 'owner', ['o'])).to.equal('forbidden');
    expect(changeVerdict(admin, { id: 'o', role: 'owner' }, 'admin', ['o', 'p'])).to.equal('forbidden');
    expect(changeVerdict(admin, { id: 'o', role: 'owner' }, undefined, ['o', 'p'])).to.equal('forbidden');
    expect(changeVerdict(admin, { id: 'm', role: 'member' }, undefined, ['o'])).to.equal('allowed');
  });

  it('a member changes nobody, not even itself', () => {
    const member = actor('member');
    const self = { id: member.memberId, role: 'member' as const };
    expect(changeVerdict(member, self, 'admin', ['o'])).to.equal('forbidden');
    expect(changeVerdict(member, self, undefined, ['o'])).to.equal('forbidden');
  });

  it('the last owner is neither demoted nor removed; one of two is', () => {
    const owner = actor('owner');
    const last = { id: owner.memberId, role: 'owner' as const };
    expect(changeVerdict(owner, last, 'admin', [last.id])).to.equal('last_owner');
    expect(changeVerdict(owner, last, undefined, [last.id])).to.equal('last_owner');
    expect(changeVerdict(owner, last, 'owner', [last.id])).to.equal('allowed');
    expect(changeVerdict(owner, last, 'member', [last.id, 'other'])).to.equal('allowed');
    expect(changeVerdict(owner, last, undefined, [last.id, 'other'])).to.equal('allowed');
    expect(changeVerdict(owner, { id: 'm', role: 'member' }, undefined, [last.id])).to.equal('allowed');
  });
});
