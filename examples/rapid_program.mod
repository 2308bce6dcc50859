MODULE Weld_IRB140
  ! thermocomp example (docs/programs.md): a weld seam on a table, ABB IRB140, written as RobotStudio writes it.
  ! Compensate it:  thermocomp compensate --robot irb140 --deformation deformations/exaggerated.csv \
  !                     --program examples/rapid_program.mod --out out/rapid_program_comp.mod
  PERS tooldata tWeldGun:=[TRUE,[[31.8,0,229.8],[0.976296,0,0.21644,0]],[1.5,[-10,0,100],[1,0,0,0],0,0,0]];
  TASK PERS wobjdata wobjTable:=[FALSE,TRUE,"",[[450,-180,150],[1,0,0,0]],[[0,0,0],[1,0,0,0]]];
  CONST jointtarget jHome:=[[0,0,0,0,30,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget pApproach:=[[0,0,100],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget pStart:=[[0,0,0],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget pMid:=[[0,150,0],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget pArcVia:=[[40,190,0],[0,0,1,0],[0,-1,0,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget pArcEnd:=[[80,150,0],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST robtarget pEnd:=[[80,0,0],[0,0,1,0],[-1,0,-1,0],[9E+09,9E+09,9E+09,9E+09,9E+09,9E+09]];
  CONST speeddata vWeld:=[12,500,5000,1000];

  PROC main()
    MoveAbsJ jHome\NoEOffs, v1000, z50, tool0;
    Weld_Seam;
    MoveAbsJ jHome\NoEOffs, v1000, z50, tool0;
  ENDPROC

  PROC Weld_Seam()
    MoveJ pApproach, v1000, z20, tWeldGun\WObj:=wobjTable;
    MoveL pStart, v200, fine, tWeldGun\WObj:=wobjTable;
    SetDO doArcOn, 1;
    WaitTime 0.5;
    MoveL pMid, vWeld, z1, tWeldGun\WObj:=wobjTable;
    MoveC pArcVia, pArcEnd, vWeld, z1, tWeldGun\WObj:=wobjTable;
    MoveL pEnd, vWeld, fine, tWeldGun\WObj:=wobjTable;
    SetDO doArcOn, 0;
    MoveL Offs(pEnd, 0, 0, 100), v500, z20, tWeldGun\WObj:=wobjTable;
  ENDPROC
ENDMODULE
