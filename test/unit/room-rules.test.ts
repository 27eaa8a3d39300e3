import { describe, expect, it } from 'vitest';
import { leaveFacts, leavePermission, newAdminRefusal, withMemberActions } from '../../src-main/core/rooms/rules.js';

/**
 * Leaving a room (docs/rooms.md "Members"): the members record says whether the caller may leave
 * and whom a last admin may name (`next_admins`), and the leave itself asks the same functions
 * (rooms/store.ts leaveRoom), so the window keeps no copy of the rule (LeaveRoom.tsx).
 */
type Human = { owner_id: string; role: 'admin' | 'member' };
const h = (owner_id: string, role: Human['role']): Human => ({ owner_id, role });

// [the room's humans, who leaves, what the record says of leave, whom it may name]
const LEAVE: Array<[Human[], string, 'yes' | 'last_admin' | 'only_human', string[], string]> = [
  [[h('ada', 'admin'), h('bea', 'admin')], 'ada', 'yes', ['bea'], 'another admin stays'],
  [[h('ada', 'admin'), h('bea', 'member'), h('cy', 'member')], 'ada', 'last_admin', ['bea', 'cy'], 'the last admin names one of the others'],
  [[h('ada', 'admin')], 'ada', 'only_human', [], 'the only human cannot leave'],
  [[h('ada', 'admin'), h('bea', 'member')], 'bea', 'yes', ['ada'], 'a member leaves freely'],
];

describe('leaving a room', () => {
  for (const [humans, self, leave, next, why] of LEAVE) {
    it(`${why}: ${leave}`, () => {
      const facts = leaveFacts(humans, { ownerId: self, role: humans.find((x) => x.owner_id === self)!.role });
      expect(facts.nextAdmins).toEqual(next);
      const p = leavePermission(facts);
      expect(p.ok ? 'yes' : p.code).toBe(leave);
      // The members record says the same, and names whom to pick only when one must be named.
      const record = withMemberActions({ humans, agents: [] }, { ownerId: self, role: facts.role! }).humans.find((x) => x.owner_id === self)!;
      if (leave === 'yes') expect(record).toMatchObject({ allowed_actions: ['leave'], denied_actions: {} });
      else expect(record.denied_actions.leave?.code).toBe(leave);
      expect(record.next_admins).toEqual(leave === 'last_admin' ? next : undefined);
    });
  }

  it('a leaving admin may name exactly its next_admins; a member names nobody', () => {
    const humans = [h('ada', 'admin'), h('bea', 'member'), h('cy', 'member')];
    const asAda = leaveFacts(humans, { ownerId: 'ada', role: 'admin' });
    expect(newAdminRefusal(asAda, 'ada', 'bea')).toBeUndefined();
    expect(newAdminRefusal(asAda, 'ada', 'cy')).toBeUndefined();
    expect(newAdminRefusal(asAda, 'ada', 'ada')).toBe('self');
    expect(newAdminRefusal(asAda, 'ada', 'dee')).toBe('not_a_member');
    const asBea = leaveFacts(humans, { ownerId: 'bea', role: 'member' });
    expect(newAdminRefusal(asBea, 'bea', 'cy')).toBe('not_room_admin');
  });
});
